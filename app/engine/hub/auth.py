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

from app.engine.hub.progress import DownloadError

# Where a token can come from, as the messages name them.
TOKEN_PLACES = "Settings → Hugging Face token in the window, HF_TOKEN or --token"


def _hub_says(exc: HfHubHTTPError) -> str:
    """The Hub's own status and message, e.g. ``the Hub answered 401: Invalid credentials ...``."""
    response = exc.response
    if response is None:
        return ""
    message = (response.headers.get("X-Error-Message") or "").strip()
    return f" (the Hub answered {response.status_code}{': ' + message if message else ''})"


def auth_error(exc: Exception, repo_id: str | None, endpoint: str, token_sent: bool) -> DownloadError | None:
    """A :class:`DownloadError` for a gated repository or a refused token, or None for any other failure."""
    if isinstance(exc, GatedRepoError):
        name = repo_id or "this repository"
        if token_sent:
            return DownloadError(
                f"{name} is gated: accept its licence at {endpoint}/{name} while logged in, then pass a token "
                f"of that account; the token given was not granted access{_hub_says(exc)}"
            )
        return DownloadError(
            f"{name} is gated: accept its licence at {endpoint}/{name} while logged in, then pass a token "
            f"({TOKEN_PLACES}){_hub_says(exc)}"
        )
    if isinstance(exc, HfHubHTTPError) and exc.response is not None and exc.response.status_code == 401:
        message = exc.response.headers.get("X-Error-Message") or ""
        if token_sent and "credentials" in message.lower():
            return DownloadError(
                f"the Hub refused the Hugging Face token as invalid{_hub_says(exc)}: "
                f"correct or remove it ({TOKEN_PLACES}); tokens are at {endpoint}/settings/tokens"
            )
    return None
