"""Conversations on disk: the chat store, one SQLite file in the data folder, written as the chat happens.

:class:`ChatStore` is the one object the window and the CLI use; its parts
each hold one concern:

- :mod:`~app.engine.store.connection`: opening the file (the writer lock, checks, migration, closing replies
  a crash cut short, emptying the old trash), each write's transaction, closing;
- :mod:`~app.engine.store.chats`: conversations as rows (titles, pins, per-chat settings, the trash);
- :mod:`~app.engine.store.presets`: named settings and the default one;
- :mod:`~app.engine.store.tree`: the messages of a conversation as a tree and the branch on screen;
- :mod:`~app.engine.store.branches`: a branch forked into a new chat; a message deleted into the trash, undone;
- :mod:`~app.engine.store.replies`: a reply written as it streams, and finished;
- :mod:`~app.engine.store.tokens`: a reply's tokens, and the text of a cut-off reply rebuilt from them;
- :mod:`~app.engine.store.steps`: a local reply's verify steps (their records, for replay);
- :mod:`~app.engine.store.attachments`: files attached to messages, each kept once by its hash;
- :mod:`~app.engine.store.exports`: a conversation out as JSON or Markdown, an export in as a new chat.

The user's message is committed the moment it is sent; the assistant's reply
is a row created when generation starts (state ``streaming``) whose tokens
are appended while it streams and whose text and statistics are filled in
when it ends. WAL mode keeps each commit cheap and a ``kill -9`` can only
lose what had not been committed yet: at most the tail of the reply in flight.

The names other code imports from this module stay importable from here
(the records, :data:`ACTIVE_LEAF`, the state constants, which are
:class:`~app.core.conversation.chat.MessageState` members).
"""

from __future__ import annotations

from app.core.conversation.chat import MessageState
from app.engine.store.attachment_search import FileChunkSearch, StoreChunkSearch
from app.engine.store.attachments import Attachments
from app.engine.store.attachments import AttachmentSummary as AttachmentSummary
from app.engine.store.branches import Branches
from app.engine.store.chats import Chats
from app.engine.store.chats import ConversationSummary as ConversationSummary
from app.engine.store.connection import TRASH_KEEP_S as TRASH_KEEP_S
from app.engine.store.connection import default_path as default_path
from app.engine.store.exchange import ImportFormatError as ImportFormatError  # what import_json raises
from app.engine.store.exports import Exports
from app.engine.store.presets import Presets
from app.engine.store.replies import Replies
from app.engine.store.schema import SCHEMA_VERSION as SCHEMA_VERSION
from app.engine.store.search import SearchHit as SearchHit  # what search returns
from app.engine.store.search import search as search_messages
from app.engine.store.steps import Steps
from app.engine.store.tree import ACTIVE_LEAF as ACTIVE_LEAF
from app.engine.store.tree import StoredMessage as StoredMessage

# Message states under their older names. A reply is "streaming" only while this process generates it.
DONE = MessageState.DONE
STREAMING = MessageState.STREAMING
CANCELLED = MessageState.CANCELLED
INTERRUPTED = MessageState.INTERRUPTED
FAILED = MessageState.FAILED


class ChatStore(Chats, Presets, Replies, Branches, Steps, Exports, Attachments):
    """Conversations and their messages in one SQLite file (use from one thread).

    ``read_only`` opens the file without the writer lock and never writes to
    it (a second instance, or a file the user chose not to repair). Opening
    for writing raises :class:`~app.engine.store.database.StoreOpenError`
    when the file or its folder is unusable or another store holds the lock,
    and migrates an older file (keeping a copy of it first;
    :attr:`migrated_from` names the copy). :meth:`scratch` is a store in
    memory for when the file cannot be used at all.

    A conversation is a tree of messages: regenerating a reply or editing a
    message adds a sibling, and the branch on screen is the path from a root
    to the conversation's active leaf. :meth:`messages` returns that path, so
    callers that know nothing of branches see a linear chat.
    """

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Messages of every chat not in the trash containing every word of ``query``, newest first.

        To show a hit in its branch: :meth:`switch_to` its ``message_id``, then :meth:`messages`.
        """
        return search_messages(self._db, query, limit)

    def chunk_search(self) -> StoreChunkSearch:
        """BM25 over this store's attachment chunks, for :class:`~app.engine.reply.ReplyRequest`'s ``chunk_search``."""
        return StoreChunkSearch(self._db, writable=not self.read_only)

    def chunk_search_elsewhere(self) -> FileChunkSearch | None:
        """:meth:`chunk_search` for another thread (the window's engine thread); None: search in memory.

        A read-only or scratch store has no index to add to: its attachments are searched in memory.
        """
        if self.read_only or self.temporary:
            return None
        return FileChunkSearch(self.path)
