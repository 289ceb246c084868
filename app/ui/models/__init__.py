"""Choosing and fitting models: the pair picker, the memory meter, the first-run welcome, library calls."""
