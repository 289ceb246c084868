"""Which Hugging Face token a Hub call sends: the one given, else ``HF_TOKEN``, else the saved one.

The saved token is the one the window's Settings → Hugging Face Hub field keeps
(:meth:`~app.engine.remote.credentials.CredentialStore.hub_token`, in the system
keyring or a 0600 file). With none of these, huggingface_hub still sends the
token of a ``huggingface-cli login``, if there is one, as it always did.
"""

from __future__ import annotations

import os

from app.core.errors import TandemError
from app.engine.remote.credentials import CredentialStore


def hub_token(given: str | None = None, store: CredentialStore | None = None) -> str | None:
    """The token for a Hub call: ``given`` (``--token``), ``HF_TOKEN``, the saved token, or None."""
    if given:
        return given
    from_env = os.environ.get("HF_TOKEN", "").strip()
    if from_env:
        return from_env
    try:
        saved = (store or CredentialStore()).hub_token()
    except TandemError:
        # An unreadable keyring must not stop public downloads; a gated one then says a token is needed.
        return None
    return saved or None
