"""Memory on this machine: what the hardware offers, a model's shape for the estimate, measured use."""
