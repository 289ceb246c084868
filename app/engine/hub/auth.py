"""The Hub's answers about tokens, in plain words: a gated model without a token, a token not granted, a bad token.

The Hub tells these apart by status and headers (``X-Error-Code: GatedRepo`` with
401 when no token was sent and 403 when the token's owner has not been granted
access; 401 with ``X-Error-Message: Invalid credentials in Authorization header``
for a token it does not know), and huggingface_hub keeps the response on the
error it raises. :func:`auth_error` turns each into one sentence that says what
to do, quoting the Hub's own message where it sent one.
"""

from __future__ import annotations

from huggingface_hub.errors import GatedRepoError, HfHubHTTPError

from app.core.display.wording import QT_TRANSLATE_NOOP, Value
from app.engine.hub.progress import DownloadError

# Where a token can come from, as the messages name them.
TOKEN_PLACE_WORDS = QT_TRANSLATE_NOOP("HubErrors", "Settings → Hugging Face token in the window, HF_TOKEN or --token")
TOKEN_PLACES = str(TOKEN_PLACE_WORDS)


def _hub_says(exc: HfHubHTTPError) -> Value:
    """The Hub's own status and message, e.g. `` (the Hub answered 401: Invalid credentials ...)``."""
    response = exc.response
    if response is None:
        return ""
    message = (response.headers.get("X-Error-Message") or "").strip()
    # The status code is a name, not a quantity: passed as text so no locale groups its digits.
    if message:
        return QT_TRANSLATE_NOOP("HubErrors", " (the Hub answered {status}: {message})").fill(
            status=str(response.status_code), message=message
        )
    return QT_TRANSLATE_NOOP("HubErrors", " (the Hub answered {status})").fill(status=str(response.status_code))


def auth_error(exc: Exception, repo_id: str | None, endpoint: str, token_sent: bool) -> DownloadError | None:
    """A :class:`DownloadError` for a gated repository or a refused token, or None for any other failure."""
    if isinstance(exc, GatedRepoError):
        name: Value = repo_id or QT_TRANSLATE_NOOP("HubErrors", "this repository")
        if token_sent:
            return DownloadError(
                QT_TRANSLATE_NOOP(
                    "HubErrors",
                    "{name} is gated: accept its licence at {endpoint}/{name} while logged in, then pass a token "
                    "of that account; the token given was not granted access{hub_says}",
                ).fill(name=name, endpoint=endpoint, hub_says=_hub_says(exc))
            )
        return DownloadError(
            QT_TRANSLATE_NOOP(
                "HubErrors",
                "{name} is gated: accept its licence at {endpoint}/{name} while logged in, then pass a token "
                "({places}){hub_says}",
            ).fill(name=name, endpoint=endpoint, places=TOKEN_PLACE_WORDS, hub_says=_hub_says(exc))
        )
    if isinstance(exc, HfHubHTTPError) and exc.response is not None and exc.response.status_code == 401:
        message = exc.response.headers.get("X-Error-Message") or ""
        if token_sent and "credentials" in message.lower():
            return DownloadError(
                QT_TRANSLATE_NOOP(
                    "HubErrors",
                    "the Hub refused the Hugging Face token as invalid{hub_says}: "
                    "correct or remove it ({places}); tokens are at {endpoint}/settings/tokens",
                ).fill(hub_says=_hub_says(exc), places=TOKEN_PLACE_WORDS, endpoint=endpoint)
            )
    return None
