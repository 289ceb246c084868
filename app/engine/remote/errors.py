"""How a remote server's failures reach the user: one error type and the sentences it carries.

Every failure of a remote reply or model list (no connection, a refused key,
an unknown route, a time-out, a stream that breaks or sends garbage) is one
:class:`RemoteError`. It carries the text that had arrived, so nothing is
lost, and a translatable sentence (:class:`~app.core.display.wording.Words`) with the
URL, the status and the server's own words filled in as values, as they came.
"""

from __future__ import annotations

import httpx2

from app.core.decoding.stats import GenerationStats
from app.core.display.wording import QT_TRANSLATE_NOOP, Words, words_of
from app.core.errors import TandemError
from app.engine.remote.stream import ERROR_BODY_BYTES
from app.engine.remote.wire import WireError, error_text, loads

# What the chat window says when a remote reply or model list fails (app/ui/threads/worker.py renders
# them); the server's own text, the URL and httpx's detail go in as values, as they came.
NO_MODEL_LIST_IN_TIME = QT_TRANSLATE_NOOP("RemoteErrors", "{url} did not send its model list within {seconds:g} s")
NOT_A_URL = QT_TRANSLATE_NOOP("RemoteErrors", "{url} is not a usable server URL: {error}")
NOT_A_MODEL_LIST = QT_TRANSLATE_NOOP("RemoteErrors", "{url} did not answer with a model list: {error}")
NO_MODELS = QT_TRANSLATE_NOOP("RemoteErrors", "{url} offers no models")
SERVER_ERROR = QT_TRANSLATE_NOOP("RemoteErrors", "the server reported an error: {error}")
STREAM_ENDED_EARLY = QT_TRANSLATE_NOOP(
    "RemoteErrors", "the stream from {url} ended before the reply did: the partial reply is kept"
)
PARTIAL_KEPT = QT_TRANSLATE_NOOP("RemoteErrors", "{error}: the partial reply is kept")
DEADLINE = QT_TRANSLATE_NOOP(
    "RemoteErrors", "{url} did not finish the reply within the {seconds:g} s deadline: the partial reply is kept"
)
_KEY_REFUSED = QT_TRANSLATE_NOOP("RemoteErrors", "{url} refused the API key ({status}): {detail}")
_NO_SUCH_ROUTE = QT_TRANSLATE_NOOP("RemoteErrors", "{url} has no such model or route (404): {detail}")
_ANSWERED = QT_TRANSLATE_NOOP("RemoteErrors", "{url} answered {status}: {detail}")
_CANNOT_RESOLVE = QT_TRANSLATE_NOOP("RemoteErrors", "cannot resolve the server's name in {url}")
_CANNOT_CONNECT = QT_TRANSLATE_NOOP("RemoteErrors", "cannot connect to {url}: is the server running? ({error})")
_NO_ANSWER_IN_TIME = QT_TRANSLATE_NOOP("RemoteErrors", "{url} did not answer in time ({kind})")
_BROKE_OFF = QT_TRANSLATE_NOOP(
    "RemoteErrors", "the connection to {url} broke off mid-reply ({kind}): the partial reply is kept"
)
_TALKING_FAILED = QT_TRANSLATE_NOOP("RemoteErrors", "talking to {url} failed: {kind}: {error}")


class RemoteError(TandemError):
    """The remote reply failed; ``partial`` holds the text that had arrived and ``stats`` what was counted."""

    def __init__(self, message: str | Words, partial: str = "", stats: GenerationStats | None = None) -> None:
        super().__init__(message)
        self.partial = partial
        self.stats = stats or GenerationStats()


def raise_for_status(status: int, text: str, base_url: str) -> None:
    """Raise the :class:`RemoteError` an HTTP error status stands for (below 400: nothing)."""
    if status < 400:
        return
    try:
        detail = error_text(loads(text, ERROR_BODY_BYTES))
    except WireError:
        detail = " ".join(text.split())[:200]
    if status in (401, 403):
        raise RemoteError(_KEY_REFUSED.fill(url=base_url, status=status, detail=detail))
    if status == 404:
        raise RemoteError(_NO_SUCH_ROUTE.fill(url=base_url, detail=detail))
    raise RemoteError(_ANSWERED.fill(url=base_url, status=status, detail=detail))


def transport_message(base_url: str, exc: httpx2.HTTPError | httpx2.StreamError, mid_stream: bool = False) -> Words:
    """What a failure of the connection itself means to the user (``mid_stream``: the reply had begun)."""
    if isinstance(exc, httpx2.ConnectError):
        text = str(exc).lower()
        if "name or service" in text or "nodename" in text or "resolve" in text:
            return _CANNOT_RESOLVE.fill(url=base_url)
        return _CANNOT_CONNECT.fill(url=base_url, error=str(exc))
    if isinstance(exc, httpx2.TimeoutException):
        return _NO_ANSWER_IN_TIME.fill(url=base_url, kind=type(exc).__name__)
    if mid_stream:
        return _BROKE_OFF.fill(url=base_url, kind=type(exc).__name__)
    return _TALKING_FAILED.fill(url=base_url, kind=type(exc).__name__, error=str(exc))


def said(exc: BaseException) -> str | Words:
    """An error's sentence kept translatable when it was made with words, else its text."""
    sentence = words_of(exc)
    return sentence if isinstance(sentence, Words) else str(exc)
