"""The Hugging Face Hub: downloads with progress, cancel and resume.

Only :mod:`app.engine.models` calls into this package; the GUI and the CLI reach
the Hub through the model library.
"""
