"""The chat database's tables, version by version, and the one road from an empty file to the current version.

Version 1 held linear conversations. Version 2 makes each conversation a
tree (``parent_id``; the branch on screen is the conversation's
``active_leaf`` and, at each fork, the parent's ``active_child``), gives each
chat its settings, a pin and a trash date, adds named presets and a
full-text index of the messages kept in sync by triggers.

A new file is built exactly as an old one is migrated: the v1 tables, then
:data:`UPGRADE_TO_V2`, so a fresh database and a migrated one cannot
drift apart. SQLite's DDL is transactional, so running the upgrade inside
one transaction leaves a file at v1 or at v2, never between.

The full-text index uses FTS5's ``trigram`` tokenizer: it finds any
substring of three or more characters, case-insensitively, in any script,
which is what Japanese and Chinese (no spaces between words) and emoji
need; unicode61 would only find whole space-separated words there.
Shorter queries are answered with ``LIKE`` (see :mod:`app.engine.store.search`).
Version 3 keeps what a reply is made of beyond its text: each token's
drafter (``source``) and, for a token prompt lookup copied, where from
(``copied_from``: "report.pdf, p. 3" or "earlier in this chat"); each verify
step of a local reply (``steps``: one row per step, the JSON of
:class:`~app.core.reply.step_record.StepRecord`, for replay); and files
attached to messages: ``attachments`` holds each distinct file once (by the
SHA-256 of its bytes) with its extracted text, ``message_attachments`` which
message uses which under what name, ``attachment_chunks`` the passages
retrieval searches (FTS5 with BM25 ranking, filled when first searched). A
trigger removes an attachment, and its chunks, when no message uses it any more.

Version 4 keeps the images sent with messages: ``images`` holds each
picture's bytes once (by SHA-256) with its type and size in pixels,
``message_images`` which message carries which, in order, under what name.
As for files, a trigger removes an image with the last message that carries it.

Only finished text is indexed: a streaming reply's row holds no content until
:meth:`~app.engine.store.conversations.ChatStore.finish_reply` sets it, and
that update re-indexes the row.
"""

from __future__ import annotations

SCHEMA_VERSION = 4
# tokens.p_target for "not known" (a remote server's tokens): SQLite turns NaN into NULL, and no
# probability is negative.
UNKNOWN_P_STORED = -1.0

SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS conversations (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    state TEXT NOT NULL,
    created REAL NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages(conversation_id, id);
CREATE TABLE IF NOT EXISTS tokens (
    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    text TEXT NOT NULL,
    origin TEXT NOT NULL,
    p_target REAL NOT NULL,
    q_draft REAL,
    rejected_text TEXT,
    rejected_p REAL,
    rejected_q REAL,
    PRIMARY KEY (message_id, idx)
) WITHOUT ROWID;
"""

# Statements, in order, that take a v1 file (or an empty one with the v1 tables) to v2.
# parent_id has no foreign key on purpose: a cascade down a long chain would recurse once
# per message (SQLite stops at 1000 levels); the store deletes a subtree in one statement.
UPGRADE_TO_V2 = (
    "ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE conversations ADD COLUMN settings TEXT NOT NULL DEFAULT '{}'",
    "ALTER TABLE conversations ADD COLUMN active_leaf INTEGER",
    "ALTER TABLE conversations ADD COLUMN deleted REAL",
    "ALTER TABLE messages ADD COLUMN parent_id INTEGER",
    "ALTER TABLE messages ADD COLUMN active_child INTEGER",
    # v1 conversations are linear: each message's parent is the one before it.
    "UPDATE messages SET parent_id = (SELECT MAX(p.id) FROM messages p "
    "WHERE p.conversation_id = messages.conversation_id AND p.id < messages.id)",
    "CREATE INDEX messages_by_parent ON messages(parent_id, id)",
    "UPDATE messages SET active_child = (SELECT MAX(c.id) FROM messages c WHERE c.parent_id = messages.id)",
    "UPDATE conversations SET active_leaf = "
    "(SELECT MAX(m.id) FROM messages m WHERE m.conversation_id = conversations.id)",
    "CREATE TABLE presets (name TEXT PRIMARY KEY, settings TEXT NOT NULL, created REAL NOT NULL)",
    "CREATE TABLE preferences (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE VIRTUAL TABLE messages_fts USING fts5(content, tokenize='trigram')",
    "INSERT INTO messages_fts(rowid, content) SELECT id, content FROM messages WHERE content != ''",
    "CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.content != '' BEGIN "
    "INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content); END",
    "CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN "
    "DELETE FROM messages_fts WHERE rowid = old.id; "
    "INSERT INTO messages_fts(rowid, content) SELECT new.id, new.content WHERE new.content != ''; END",
    "CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN "
    "DELETE FROM messages_fts WHERE rowid = old.id; END",
    "PRAGMA user_version = 2",
)

# Statements, in order, that take a v2 file to v3.
UPGRADE_TO_V3 = (
    "ALTER TABLE tokens ADD COLUMN source TEXT",
    "ALTER TABLE tokens ADD COLUMN copied_from TEXT",
    "CREATE TABLE steps ("
    "message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE, "
    "idx INTEGER NOT NULL, first_token INTEGER NOT NULL, data TEXT NOT NULL, "
    "PRIMARY KEY (message_id, idx)) WITHOUT ROWID",
    "CREATE TABLE attachments ("
    "id INTEGER PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, size INTEGER NOT NULL, "
    "text TEXT NOT NULL, meta TEXT NOT NULL DEFAULT '{}', created REAL NOT NULL)",
    "CREATE TABLE message_attachments ("
    "message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE, position INTEGER NOT NULL, "
    "attachment_id INTEGER NOT NULL REFERENCES attachments(id), name TEXT NOT NULL, "
    "PRIMARY KEY (message_id, position)) WITHOUT ROWID",
    "CREATE INDEX message_attachments_by_attachment ON message_attachments(attachment_id)",
    "CREATE VIRTUAL TABLE attachment_chunks USING fts5("
    "text, attachment_id UNINDEXED, start UNINDEXED, tokenize='porter unicode61 remove_diacritics 2')",
    # Foreign-key cascades fire triggers too: deleting a message (or a chat) drops its links, and
    # the last link gone takes the file's row and its chunks with it.
    "CREATE TRIGGER attachments_unused AFTER DELETE ON message_attachments "
    "WHEN NOT EXISTS (SELECT 1 FROM message_attachments WHERE attachment_id = old.attachment_id) BEGIN "
    "DELETE FROM attachment_chunks WHERE attachment_id = old.attachment_id; "
    "DELETE FROM attachments WHERE id = old.attachment_id; END",
    "PRAGMA user_version = 3",
)

# Statements, in order, that take a v3 file to v4.
UPGRADE_TO_V4 = (
    "CREATE TABLE images ("
    "id INTEGER PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE, mime TEXT NOT NULL, size INTEGER NOT NULL, "
    "width INTEGER NOT NULL, height INTEGER NOT NULL, data BLOB NOT NULL, created REAL NOT NULL)",
    "CREATE TABLE message_images ("
    "message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE, position INTEGER NOT NULL, "
    "image_id INTEGER NOT NULL REFERENCES images(id), name TEXT NOT NULL, "
    "PRIMARY KEY (message_id, position)) WITHOUT ROWID",
    "CREATE INDEX message_images_by_image ON message_images(image_id)",
    "CREATE TRIGGER images_unused AFTER DELETE ON message_images "
    "WHEN NOT EXISTS (SELECT 1 FROM message_images WHERE image_id = old.image_id) BEGIN "
    "DELETE FROM images WHERE id = old.image_id; END",
    "PRAGMA user_version = 4",
)

# Each version's upgrade from the one before, in order: a file at version v runs those after v.
UPGRADES = ((2, UPGRADE_TO_V2), (3, UPGRADE_TO_V3), (4, UPGRADE_TO_V4))

# The whole current schema as one script: the scratch store, recovery's new file, read-only stand-ins.
SCHEMA = SCHEMA_V1 + "".join(statement + ";\n" for _, upgrade in UPGRADES for statement in upgrade)
