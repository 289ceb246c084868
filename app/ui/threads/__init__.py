"""Work off the GUI thread: the one engine thread that owns the models, background jobs, and
the responsiveness probe."""
