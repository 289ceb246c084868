"""A chat as data: its messages and tree, its settings, how a prompt is cut into segments, and output formats."""
