"""Where a remote server's API key is kept: the system keyring when there is one, else a private file.

The ``keyring`` package finds the platform's store (Secret Service or KWallet on
Linux, the macOS Keychain, Windows Credential Manager). On a Linux machine
without a Secret Service its choice is the "fail" backend (or keyrings.alt's
plain-text file, which is no safer than ours and hides where the key is), so
only keyring's own system backends count as a keyring here. Otherwise keys
go to ``remote-keys.json`` in the data folder, created with mode 0600 so
only this user can read it (tightened to 0600 when found looser), and :attr:`CredentialStore.where` says so in
words the window shows. Keys are filed under the server's base URL.

The Hugging Face token for gated and private models (Settings → Hugging Face
Hub) is kept in the same place under its own entry name, :data:`HUB_TOKEN_ENTRY`,
which is not a URL and so never a server's entry.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import keyring
import keyring.backend
import keyring.errors
from keyring.backends import chainer, fail

from app.core.display.wording import QT_TRANSLATE_NOOP, Words
from app.core.errors import TandemError
from app.engine.paths import data_dir
from app.engine.safe_files import make_private_folder, tighten

SERVICE = "Tandem remote server"
KEY_FILE = "remote-keys.json"
# The Hugging Face token's entry beside the servers' keys (theirs are base URLs).
HUB_TOKEN_ENTRY = "huggingface-hub-token"
# keyring's own backends that are not a real store: one that refuses everything, one that drops everything.
_NOT_STORES = ("keyring.backends.fail", "keyring.backends.null", "keyring.backends.chainer")

# What the window says about the keys' store, in its own language.
_IN_KEYRING = QT_TRANSLATE_NOOP("Credentials", "in the system keyring ({name})")
_IN_FILE = QT_TRANSLATE_NOOP("Credentials", "in {path} (readable only by you: no system keyring is available)")
_KEYRING_UNREADABLE = QT_TRANSLATE_NOOP("Credentials", "the system keyring could not be read: {error}")
_KEYRING_REFUSED = QT_TRANSLATE_NOOP("Credentials", "the system keyring refused the key: {error}")
_FILE_UNREADABLE = QT_TRANSLATE_NOOP("Credentials", "the saved API keys in {path} cannot be read: {error}")
_NOT_SAVED = QT_TRANSLATE_NOOP("Credentials", "the API key could not be saved in {path}: {error}")


def is_system_keyring(backend: keyring.backend.KeyringBackend) -> bool:
    """True for a backend that keeps secrets in the platform's own store."""
    if isinstance(backend, chainer.ChainerBackend):
        return any(is_system_keyring(b) for b in backend.backends)
    if isinstance(backend, fail.Keyring):
        return False
    module = type(backend).__module__
    return module.startswith("keyring.backends.") and not module.startswith(_NOT_STORES)


def system_keyring() -> keyring.backend.KeyringBackend | None:
    """The platform's keyring, or None where there is none to use."""
    try:
        backend = keyring.get_keyring()
    except Exception:  # a broken keyring configuration must not stop the window; the file still works
        return None
    return backend if is_system_keyring(backend) else None


class CredentialStore:
    """API keys by base URL, in ``backend`` (default: the system keyring) or in a 0600 file in ``folder``.

    ``system=False`` never looks for the system keyring (the file only, or ``backend``).
    """

    def __init__(
        self,
        folder: Path | None = None,
        backend: keyring.backend.KeyringBackend | None = None,
        *,
        system: bool = True,
    ) -> None:
        self.path = (folder or data_dir()) / KEY_FILE
        self.backend = backend if backend is not None or not system else system_keyring()

    @property
    def uses_keyring(self) -> bool:
        """Whether keys go to a keyring rather than the file."""
        return self.backend is not None

    @property
    def where(self) -> str:
        """Where a saved key is kept, in words for the user (English; the window shows :attr:`where_words`)."""
        return str(self.where_words)

    @property
    def where_words(self) -> Words:
        """Where a saved key is kept, translatable."""
        if self.backend is not None:
            return _IN_KEYRING.fill(name=self.backend.name)
        return _IN_FILE.fill(path=str(self.path))

    def load(self, base_url: str) -> str | None:
        """The key saved for ``base_url``, or None."""
        if self.backend is not None:
            try:
                return self.backend.get_password(SERVICE, base_url)
            except keyring.errors.KeyringError as exc:
                raise TandemError(_KEYRING_UNREADABLE.fill(error=str(exc))) from None
        value = self._read_file().get(base_url)
        return value if isinstance(value, str) else None

    def save(self, base_url: str, key: str) -> None:
        """Keep ``key`` for ``base_url`` (an empty key forgets it)."""
        if not key:
            self.forget(base_url)
            return
        if self.backend is not None:
            try:
                self.backend.set_password(SERVICE, base_url, key)
            except keyring.errors.KeyringError as exc:
                raise TandemError(_KEYRING_REFUSED.fill(error=str(exc))) from None
            return
        keys = self._read_file()
        keys[base_url] = key
        self._write_file(keys)

    def forget(self, base_url: str) -> None:
        """Remove the key saved for ``base_url``, if any."""
        if self.backend is not None:
            try:
                self.backend.delete_password(SERVICE, base_url)
            except keyring.errors.PasswordDeleteError:
                pass  # nothing was saved: nothing to do
            except keyring.errors.KeyringError as exc:
                raise TandemError(_KEYRING_REFUSED.fill(error=str(exc))) from None
            return
        keys = self._read_file()
        if keys.pop(base_url, None) is not None:
            self._write_file(keys)

    def hub_token(self) -> str | None:
        """The saved Hugging Face token, or None."""
        return self.load(HUB_TOKEN_ENTRY)

    def save_hub_token(self, token: str) -> None:
        """Keep the Hugging Face token (surrounding blanks dropped; an empty one forgets it)."""
        self.save(HUB_TOKEN_ENTRY, token.strip())

    def _read_file(self) -> dict[str, Any]:
        tighten(self.path)  # a key file someone (or a copy) left readable by others is made private again
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise TandemError(_FILE_UNREADABLE.fill(path=str(self.path), error=str(exc))) from None
        return data if isinstance(data, dict) else {}

    def _write_file(self, keys: dict[str, Any]) -> None:
        # Written whole to a 0600 temporary file beside it, then renamed: the key is never
        # readable by others, not even for a moment, and a crash leaves the old file intact.
        try:
            make_private_folder(self.path.parent)
            fd, temporary = tempfile.mkstemp(prefix=".remote-keys-", dir=self.path.parent)  # mkstemp: mode 0600
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(keys, f, indent=1)
                os.chmod(temporary, 0o600)
                os.replace(temporary, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError as exc:
            raise TandemError(_NOT_SAVED.fill(path=str(self.path), error=str(exc.strerror or exc))) from None
