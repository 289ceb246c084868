"""Files attached to a message: the chips, the dialog, the flow that reads them and the engine's door to them."""
