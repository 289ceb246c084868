"""The chat store: conversations in one SQLite file in the data folder, and the guarantees around it.

- ``database``: opening the file without trusting it (checks, plain-words errors for opening and writing);
- ``lock``: one writer per data folder;
- ``recovery``: what can be read from a damaged file, copied into a new one; moving a file aside;
- ``schema``: the tables, version by version, and the statements from one version to the next;
- ``migration``: an older file brought to the current schema in place (a kept copy, then one transaction);
- ``search``: full-text search across chats (the trigram index, a scan for short terms, marked snippets);
- ``exchange``: the JSON export format, version 2, and checking an export (v1 or v2) before importing it;
- ``conversations``: the store itself (conversations as trees of messages, their tokens, settings, presets, exports).

The original of a damaged file is never written to: recovery reads a copy, and
starting fresh renames the file aside.
"""
