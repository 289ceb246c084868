"""The Hub half of `tandem models`: search, a repository's files, drafts found remotely, the catalog, downloads.

The commands print like the rest of `tandem models` (a table, or JSON with
``--json``), and a download shows its progress on one line of stderr, only
when stderr is a terminal. An interrupted download says how to resume it: the
same command again picks up the partial file.
"""

from __future__ import annotations

import argparse
import sys

from app.cli.common import print_json
from app.core.display.units import format_bytes, format_rate
from app.engine.models.library import (
    MAX_REPOS_CHECKED,
    DownloadProgress,
    download_hub_file,
    download_pair,
    find_drafts,
    list_repo_models,
    load_catalog,
    search_hub,
)

# Where a Hub call's token comes from when --token is not given (app.engine.models.hub_token).
TOKEN_HELP = (
    "Hugging Face token for gated repos (default: HF_TOKEN, else the one saved in Settings, else your Hub login)"
)


def add_hub_parsers(sub: argparse._SubParsersAction) -> None:
    """Register the Hub's subcommands of `models` (search, files, find-draft, catalog, download)."""
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


def _search(args: argparse.Namespace) -> int:
    page = search_hub(args.query, sort=args.sort, limit=args.limit, page=args.page, token=args.token)
    if args.json:
        print_json(
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
        print_json(
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
        print_json(
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
                        "draft_length": c.prediction.k if c.prediction else None,
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
        print_json(
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
