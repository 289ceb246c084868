"""`tandem chat --remote URL`: one reply from a remote OpenAI-compatible server, printed as local chat prints it.

The API key can come from ``--api-key`` (visible to other users in ``ps``),
``--api-key-file FILE`` or the ``TANDEM_API_KEY`` environment variable; the
reply is bounded by ``--remote-deadline`` and ``--remote-idle-timeout``
(:class:`~app.engine.remote.limits.RemoteLimits`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from app.cli.chat.printing import reply_json, run_stream, token_json
from app.cli.chat.prompt import read_prompt
from app.cli.common import sampling_params
from app.core.conversation.chat import Message
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.errors import TandemError
from app.engine.llama.session import DrafterKind
from app.engine.remote.client import RemoteEngine
from app.engine.remote.errors import RemoteError
from app.engine.remote.limits import DEFAULT_DEADLINE_S, DEFAULT_IDLE_S, RemoteLimits

KEY_ENV = "TANDEM_API_KEY"
MAX_KEY_FILE_BYTES = 64 * 1024  # a key is a line; anything longer is the wrong file


def add_options(parser: argparse.ArgumentParser) -> None:
    """``--remote``, the API key options, ``--model`` and the time-outs on the chat parser."""
    group = parser.add_argument_group("remote engine (instead of local models)")
    group.add_argument("--remote", metavar="URL", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
    group.add_argument(
        "--api-key",
        metavar="KEY",
        help=f"the server's API key (sent as a bearer token; other users can see it in ps: prefer --api-key-file "
        f"or {KEY_ENV})",
    )
    group.add_argument("--api-key-file", metavar="FILE", type=Path, help="read the API key from FILE (its first line)")
    group.add_argument("--model", metavar="NAME", help="the model to ask for (default: the server's first)")
    group.add_argument(
        "--remote-deadline",
        metavar="SECONDS",
        type=float,
        default=DEFAULT_DEADLINE_S,
        help=f"give up on a reply that has not finished after this long (default {DEFAULT_DEADLINE_S:g})",
    )
    group.add_argument(
        "--remote-idle-timeout",
        metavar="SECONDS",
        type=float,
        default=DEFAULT_IDLE_S,
        help=f"give up when the server sends no event for this long (default {DEFAULT_IDLE_S:g}; "
        "a long prompt's prefill sends nothing)",
    )


def api_key(args: argparse.Namespace) -> str | None:
    """The key from ``--api-key``, else ``--api-key-file``, else ``$TANDEM_API_KEY`` (None: no key)."""
    if args.api_key and args.api_key_file:
        raise TandemError("give the API key once: --api-key or --api-key-file, not both")
    if args.api_key:
        return str(args.api_key)
    if args.api_key_file is not None:
        path = Path(args.api_key_file).expanduser()
        try:
            with path.open("rb") as handle:
                raw = handle.read(MAX_KEY_FILE_BYTES + 1)
        except OSError as exc:
            raise TandemError(f"cannot read the API key file {path}: {exc.strerror or exc}") from None
        if len(raw) > MAX_KEY_FILE_BYTES:
            raise TandemError(f"{path} is over {MAX_KEY_FILE_BYTES:,} bytes: not an API key file")
        lines = raw.decode("utf-8", "replace").splitlines()
        key = lines[0].strip() if lines else ""
        if not key:
            raise TandemError(f"the API key file {path} is empty")
        return key
    return os.environ.get(KEY_ENV, "").strip() or None


def limits(args: argparse.Namespace) -> RemoteLimits:
    """The reply's bounds from the command line."""
    return RemoteLimits(deadline_s=args.remote_deadline, idle_s=args.remote_idle_timeout)


def run_remote(args: argparse.Namespace) -> int:
    """Stream the reply from ``args.remote``; the partial reply is printed before any error."""
    if args.max_tokens < 1:
        raise TandemError("--max-tokens must be >= 1")
    prompt = read_prompt(args)
    engine = RemoteEngine(args.remote, api_key(args), args.model, limits=limits(args))
    messages = [Message("system", args.system)] if args.system else []
    messages.append(Message("user", prompt))
    events = engine.generate(messages, sampling_params(args), args.max_tokens, tuple(args.stop))
    if args.json:
        return _json(engine, events)
    try:
        code = run_stream(events, DrafterKind.MODEL, sys.stdout)
    except RemoteError as exc:
        if exc.partial:  # keep the partial reply on its own lines, the error follows on stderr
            sys.stdout.write("\n")
        raise
    if engine.last.note:
        print(f"note: {engine.last.note}", file=sys.stderr)
    return code


def _json(engine: RemoteEngine, events: Any) -> int:
    tokens: list[dict[str, Any]] = []
    payload: dict[str, Any] = {}
    try:
        for event in events:
            if isinstance(event, StepEvent):
                tokens.extend(token_json(event))
            elif isinstance(event, FinishedEvent):
                payload = reply_json(event.text, tokens, event.reason.value, "remote", event.stats.to_dict())
    except RemoteError as exc:
        payload = reply_json(exc.partial, tokens, "error", "remote", exc.stats.to_dict())
        payload["error"] = str(exc)
    payload["server"] = {"url": engine.base_url, "model": engine.model, "kind": engine.last.kind.value}
    if engine.last.note:
        payload["server"]["note"] = engine.last.note
    json.dump(payload, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    if "error" in payload:
        print(f"error: {payload['error']}", file=sys.stderr)
        return 2
    return 0
