"""The PySide6 desktop GUI: a thin layer over the engine."""
