"""One reply of a chat, as pure data: what it will run with (the plan) and what it records (its record).

The engine's :mod:`app.engine.reply` builds a plan from a loaded pair and
runs it; every front end (the window, ``chat``, ``chat --chat``, ``serve``)
goes through it, so the decisions made here are made once.
"""
