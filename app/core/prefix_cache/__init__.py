"""A prefix cache that survives restarts, as pure rules: the entry file's format and which entry to use or drop.

The engine (:mod:`app.engine.llama.prefix_cache`) saves a model's KV state
for the tokens it holds after a reply and restores it when a later prompt
starts with those tokens; what is in a file, how it is checked, which entry
a prompt should load and which entries go when the folder is over its budget
are decided here, without llama.cpp, so they are tested with hand-built entries.
"""
