"""The chat store: conversations in one SQLite file in the data folder, and the guarantees around it.

- ``database``: opening the file without trusting it (checks, plain-words errors for opening and writing);
- ``lock``: one writer per data folder;
- ``recovery``: what can be read from a damaged file, copied into a new one; moving a file aside;
- ``schema``: the tables, version by version, and the statements from one version to the next;
- ``migration``: an older file brought to the current schema in place (a kept copy, then one transaction);
- ``search``: full-text search across chats (the trigram index, a scan for short terms, marked snippets);
- ``exchange``: the JSON export format, version 2, and checking an export (v1 or v2) before importing it;
- ``connection``: the store's connection: opening (lock, checks, migration, crashed replies, old trash), transactions;
- ``chats``: conversations as rows (titles, pins, per-chat settings, the trash);
- ``presets``: named settings and the default one;
- ``tree``: a conversation's messages as a tree, and the branch on screen;
- ``replies``: a reply written as it streams, and finished;
- ``tokens``: a reply's tokens as stored, and the text of a cut-off reply rebuilt from them;
- ``exports``: a conversation out as JSON or Markdown, an export in as a new conversation;
- ``conversations``: :class:`ChatStore`, the one object callers use, built from the parts above.

The original of a damaged file is never written to: recovery reads a copy, and
starting fresh renames the file aside.
"""
