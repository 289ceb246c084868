"""Generation settings: the panel that edits them and the QSettings store that keeps them."""
