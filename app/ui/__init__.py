"""The PySide6 desktop GUI: a thin layer over the engine."""

from app.ui.qt_compat import guard_refcounts

guard_refcounts()
