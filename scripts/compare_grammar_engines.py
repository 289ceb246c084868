"""Compare grammar engines for structured output: llguidance, outlines-core and xgrammar on the demo pair's vocabulary.

For three JSON schemas (flat, nested with arrays and enums, string-heavy) it
measures each engine's compile time, the median and p95 time to compute the
next-token mask over one fixed valid JSON walk (the same tokens for every
engine), whether it rolls back tokens (and how many) and the time of a
rollback of 4, all in one run and as ratios to llguidance; it also checks
each engine allowed every token of the walk, how often its mask equals
llguidance's bit for bit, and that a rollback restores the mask exactly.
Writes ``PREFIX.json`` and ``PREFIX.md``.

outlines-core and xgrammar are not Tandem dependencies; install them into the
venv first (``.venv/bin/pip install outlines-core xgrammar``; xgrammar brings
torch and transformers). A missing engine is reported as such.

    .venv/bin/python scripts/compare_grammar_engines.py [--model FILE.gguf] [--out PREFIX] [--engines ...]

Times depend on the machine and its load: run it on a quiet one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.core.bench.grammar_engines import render_markdown  # noqa: E402  # after the path is set
from app.engine.bench.grammar_engines import ENGINES, compare  # noqa: E402
from app.engine.llama.model import LlamaModel, LoadOptions  # noqa: E402
from app.engine.models.packaged import install_demo_pair  # noqa: E402
from app.engine.paths import models_dir  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help="a GGUF file (default: the demo pair's target)")
    parser.add_argument("--out", type=Path, default=Path("grammar-engines"), help="writes PREFIX.json and PREFIX.md")
    parser.add_argument("--engines", nargs="+", choices=ENGINES, default=list(ENGINES))
    parser.add_argument("--threads", type=int, default=1, help="xgrammar's compile threads (the others use one)")
    args = parser.parse_args()
    path = args.model or install_demo_pair(models_dir())[0]
    engines = [e for e in ENGINES if e in args.engines]  # llguidance first: it is the baseline of the ratios
    model = LlamaModel(path, LoadOptions(n_ctx=256, n_batch=32, n_threads=1))  # only its vocabulary is used
    try:
        report = compare(model, engines, threads=args.threads, progress=lambda line: print(line, file=sys.stderr))
    finally:
        model.close()
    json_path, md_path = args.out.with_suffix(".json"), args.out.with_suffix(".md")
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    md_path.write_text(render_markdown(report), encoding="utf-8")
    print(f"wrote {json_path} and {md_path}")


if __name__ == "__main__":
    main()
