"""Options shared by several subcommands, and the default model pair."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.core.decoding.sampling import (
    MIN_P,
    REPEAT_PENALTY,
    SEED,
    TEMPERATURE,
    TOP_K,
    TOP_P,
    FieldKind,
    SamplingField,
    SamplingParams,
    seed_from_setting,
)
from app.core.errors import TandemError
from app.core.memory.offload import AUTO_GPU_LAYERS
from app.core.tools.call_stream import ToolFormat
from app.engine.models.library import installed_default_pair


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """--target/--draft/--ngram/--no-draft/--drafter, context size, threads and GPU layers."""
    parser.add_argument("--target", type=Path, help="target GGUF (default: the demo pair, else the small pair)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--draft", type=Path, help="draft GGUF sharing the target's vocabulary")
    group.add_argument("--ngram", action="store_true", help="draft by prompt lookup, no second model")
    group.add_argument("--no-draft", action="store_true", help="target only: the baseline, same code path")
    parser.add_argument(
        "--drafter",
        choices=("hybrid", "model", "ngram", "mtp", "none"),
        default=None,
        help="how tokens are drafted: hybrid (default with a draft model: prompt lookup where it is "
        "trusted, the draft model elsewhere), model (the draft model only), ngram, mtp (the target's own MTP "
        "layers, no second file), none",
    )
    parser.add_argument("--ctx", type=int, default=4096, help="context size in tokens (default 4096)")
    add_threads_option(parser)
    add_gpu_layer_options(parser)


def gpu_layers(text: str) -> int:
    """``auto`` (:data:`AUTO_GPU_LAYERS`: as many as fit the free VRAM) or a layer count (-1: all)."""
    if text.strip().lower() == "auto":
        return AUTO_GPU_LAYERS
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected 'auto' or a whole number of layers (-1: all), got {text!r}"
        ) from None
    if value < -1:
        raise argparse.ArgumentTypeError(f"expected 'auto' or a number of layers >= -1, got {text!r}")
    return value


def add_gpu_layer_options(parser: argparse.ArgumentParser) -> None:
    """--ngl/--ngld auto|N: auto (default) plans them for the free VRAM, the draft first; 0 on a CPU build."""
    parser.add_argument(
        "--ngl",
        type=gpu_layers,
        default=AUTO_GPU_LAYERS,
        metavar="auto|N",
        help="target layers on the GPU: auto (default: as many as fit the free VRAM once the draft's are "
        "placed; none on a CPU build), N, or -1 for all",
    )
    parser.add_argument(
        "--ngld",
        type=gpu_layers,
        default=AUTO_GPU_LAYERS,
        metavar="auto|N",
        help="draft layers on the GPU: auto (default: as many as fit, placed before the target's), N, or -1 for all",
    )


def thread_count(text: str) -> int | None:
    """``auto`` (None: measured and re-checked while decoding) or a positive number of threads."""
    if text.strip().lower() == "auto":
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected 'auto' or a whole number of threads >= 1, got {text!r}")
    return value


def add_threads_option(parser: argparse.ArgumentParser) -> None:
    """--threads auto|N."""
    parser.add_argument(
        "--threads",
        type=thread_count,
        default=None,
        metavar="auto|N",
        help="CPU threads: auto (default) measures which count is fastest with what else runs here, "
        "and re-checks during long replies; N forces a number",
    )


def option_type(spec: SamplingField[Any]) -> Callable[[str], Any]:
    """An argparse ``type`` for one sampling field: its kind and range, refused in the field's own words."""

    def parse(text: str) -> Any:
        try:
            return spec.parse(text)
        except ValueError as exc:  # argparse shows an ArgumentTypeError's message as it is
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = spec.name  # what argparse names in its own messages
    return parse


def option_help(spec: SamplingField[Any]) -> str:
    """The option's help: what the field does, its range and its default."""
    default = f"{spec.default:g}" if spec.kind is FieldKind.FLOAT else str(spec.default)
    return f"{spec.help} ({spec.range_text()}; default {default})"


# The options add_sampling_options adds, each with the field it stands for (dest = the field's name).
SAMPLING_OPTION_FIELDS: tuple[SamplingField[Any], ...] = (TEMPERATURE, TOP_K, TOP_P, MIN_P, REPEAT_PENALTY, SEED)


def add_sampling_options(parser: argparse.ArgumentParser) -> None:
    """Temperature, truncation, penalty and seed, with the defaults and ranges of their sampling fields."""
    for spec in SAMPLING_OPTION_FIELDS:
        parser.add_argument(
            f"--{spec.name.replace('_', '-')}",
            dest=spec.name,
            type=option_type(spec),
            default=spec.default,
            metavar="N" if spec.kind is FieldKind.INT else "X",
            help=option_help(spec),
        )


def sampling_params(args: argparse.Namespace) -> SamplingParams:
    """SamplingParams from parsed options (seed -1: a fresh random seed), with a readable error for bad values."""
    try:
        return SamplingParams(
            temperature=args.temperature,
            top_k=args.top_k,
            top_p=args.top_p,
            min_p=args.min_p,
            repeat_penalty=args.repeat_penalty,
            seed=seed_from_setting(args.seed),
        )
    except ValueError as exc:
        raise TandemError(str(exc)) from exc


def default_pair() -> tuple[Path, Path]:
    """The demo pair when installed, else the small SmolLM2 pair; a clear error when neither is."""
    pair = installed_default_pair()
    if pair is None:
        raise TandemError(
            "no model pair is installed: run `python main.py models install-demo` (or pass --target and --draft)"
        )
    return pair


def resolve_pair(args: argparse.Namespace) -> tuple[Path, Path | None]:
    """The target and draft paths the user asked for, with defaults filled in."""
    if args.target is None:
        target, draft = default_pair()
        return target, (args.draft or draft)
    return args.target, args.draft


def print_json(data: Any) -> None:
    """Print a command's result as indented JSON on stdout (the form ``--json`` asks for)."""
    print(json.dumps(data, indent=2))


def add_tool_format_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--tool-format``: the call dialect to use over the one found in the model's chat template."""
    parser.add_argument(
        "--tool-format",
        choices=[f.value for f in ToolFormat],
        default=None,
        help=f"{what}: how the model writes tool calls, over what its chat template says (default: the template's)",
    )
