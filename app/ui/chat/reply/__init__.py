"""A reply: the one in flight, how it is saved, and how it is worded in its footer, its Info and its header."""
