"""`tandem chat --remote URL`: one reply from a remote OpenAI-compatible server, printed as local chat prints it."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from app.cli.common import sampling_params
from app.core.chat import Message
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.errors import TandemError
from app.engine.llama.session import DrafterKind
from app.engine.remote.client import RemoteEngine, RemoteError


def add_options(parser: argparse.ArgumentParser) -> None:
    """``--remote``, ``--api-key`` and ``--model`` on the chat parser."""
    group = parser.add_argument_group("remote engine (instead of local models)")
    group.add_argument("--remote", metavar="URL", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
    group.add_argument("--api-key", metavar="KEY", help="the server's API key (sent as a bearer token)")
    group.add_argument("--model", metavar="NAME", help="the model to ask for (default: the server's first)")


def run_remote(args: argparse.Namespace) -> int:
    """Stream the reply from ``args.remote``; the partial reply is printed before any error."""
    if args.max_tokens < 1:
        raise TandemError("--max-tokens must be >= 1")
    from app.cli.chat_command import read_prompt  # chat_command imports this module at its top

    prompt = read_prompt(args)
    engine = RemoteEngine(args.remote, args.api_key, args.model)
    messages = [Message("system", args.system)] if args.system else []
    messages.append(Message("user", prompt))
    events = engine.generate(messages, sampling_params(args), args.max_tokens, tuple(args.stop))
    if args.json:
        return _json(engine, events)
    from app.cli.chat_command import _run_stream  # the local chat's printer: same colours, same legend

    try:
        code = _run_stream(events, DrafterKind.MODEL, sys.stdout)
    except RemoteError as exc:
        if exc.partial:  # keep the partial reply on its own lines, the error follows on stderr
            sys.stdout.write("\n")
        raise
    if engine.last.note:
        print(f"note: {engine.last.note}", file=sys.stderr)
    return code


def _json(engine: RemoteEngine, events: Any) -> int:
    from app.cli.chat_command import reply_json, token_json

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
