"""The chat store: conversations in one SQLite file in the data folder, and the guarantees around it.

- ``database``: opening the file without trusting it (checks, plain-words errors for opening and writing);
- ``lock``: one writer per data folder;
- ``recovery``: what can be read from a damaged file, copied into a new one; moving a file aside;
- ``conversations``: the store itself (conversations, messages, their tokens, exports).

The original of a damaged file is never written to: recovery reads a copy, and
starting fresh renames the file aside.
"""
