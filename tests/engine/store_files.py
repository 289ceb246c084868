"""Real chat databases for the store's fault tests: written by the real store, then damaged byte by byte.

Not a test module. Read-only files need a read-only filesystem when the
tests run as root (root writes through file permissions), so
:func:`read_only_mount` mounts a small tmpfs read-only where the machine
allows mounting, and falls back to permissions otherwise.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from app.core.reply.token_record import TokenRecord
from app.engine.store.conversations import ChatStore

PAGE = 4096
REPLY_TOKENS = 271  # the reply length of the silent-damage case


def build(path: Path, conversations: int = 5, replies: int = 2) -> dict[int, list[str]]:
    """A closed, sound database; returns each conversation's assistant texts."""
    store = ChatStore(path)
    texts: dict[int, list[str]] = {}
    for c in range(conversations):
        cid = store.create_conversation(f"chat {c}")
        texts[cid] = []
        for r in range(replies):
            store.add_message(cid, "user", f"question {r} of chat {c}")
            reply = store.begin_reply(cid)
            tokens = [
                TokenRecord(text=f" w{c}.{r}.{i}", origin="draft", p_target=0.9, q_draft=0.8)
                for i in range(REPLY_TOKENS)
            ]
            store.append_tokens(reply, tokens)
            text = "".join(t.text for t in tokens)
            store.finish_reply(reply, text)
            texts[cid].append(text)
    store.close()
    return texts


def digest(path: Path) -> str:
    """SHA-256 of a file's bytes: the original must never change."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def truncate(path: Path) -> None:
    """Cut the file in half (a copy interrupted, a disk that lost its tail)."""
    os.truncate(path, path.stat().st_size // 2)


def token_pages(path: Path) -> list[int]:
    """The 1-based numbers of the pages holding reply tokens (found by their records: text then origin)."""
    data = path.read_bytes()
    return [
        n + 1 for n in range(len(data) // PAGE) if re.search(rb" w\d+\.\d+\.\d+draft", data[n * PAGE : (n + 1) * PAGE])
    ]


def garbage_pages(path: Path, first_page: int | None = None, count: int = 1) -> None:
    """Overwrite whole pages with random bytes (silent page damage); by default a page amid the reply tokens."""
    if first_page is None:
        pages = token_pages(path)
        first_page = pages[len(pages) // 2]
    with path.open("r+b") as handle:
        handle.seek(PAGE * (first_page - 1))
        handle.write(random.Random(first_page).randbytes(PAGE * count))


def destroy_header(path: Path) -> None:
    """Overwrite the 100-byte database header with random bytes."""
    with path.open("r+b") as handle:
        handle.write(random.Random(7).randbytes(100))


def can_mount() -> bool:
    """Root with mount rights (a container may refuse)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    probe = Path("/tmp") / f"tandem-mount-probe-{os.getpid()}"
    probe.mkdir(exist_ok=True)
    try:
        ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)], capture_output=True)
        if ok.returncode != 0:
            return False
        subprocess.run(["umount", str(probe)], check=True)
        return True
    finally:
        probe.rmdir()


@contextlib.contextmanager
def tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A real size-limited filesystem at ``folder`` (unmounted afterwards)."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def remount_read_only(folder: Path) -> None:
    """Make a tmpfs from :func:`tmpfs` read-only."""
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)


def fill(folder: Path) -> Path:
    """Write a filler file until the filesystem is full; returns it (delete it to free the space)."""
    filler = folder / "filler.bin"
    with filler.open("wb", buffering=0) as handle, contextlib.suppress(OSError):
        while True:
            handle.write(b"\0" * 4096)
    return filler
