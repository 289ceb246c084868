"""The conversation tree: its actions on the active branch (regenerate, edit, continue, delete, fork, switch)."""
