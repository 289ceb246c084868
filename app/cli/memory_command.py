"""`tandem memory`: how much memory a pair needs here, whether it fits, and what to change if not.

Exit code 1 when the verdict is "does not fit", so a script can stop before loading.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from app.cli.common import add_gpu_layer_options, resolve_pair
from app.core.display.units import MIB, format_bytes
from app.core.errors import TandemError
from app.core.memory.estimate import KV_TYPES, Device, gpu_layer_count
from app.core.memory.verdict import DOES_NOT_FIT
from app.engine.memory.plan import MemoryPlan, plan_pair


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `memory`."""
    parser = subparsers.add_parser("memory", help="estimate a pair's memory and check it against this machine")
    parser.add_argument("--target", type=Path, help="target GGUF (default: the demo pair, else the small pair)")
    parser.add_argument("--draft", type=Path, help="draft GGUF (default: the default pair's draft)")
    parser.add_argument("--no-draft", action="store_true", help="estimate the target alone (n-gram or no drafter)")
    parser.add_argument("--ctx", type=int, default=4096, help="context size in tokens (default 4096)")
    add_gpu_layer_options(parser)
    parser.add_argument("--kv-type", choices=sorted(KV_TYPES), default="f16", help="KV cache type (default f16)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Estimate, probe, judge, print."""
    if args.ctx < 16:
        raise TandemError("--ctx must be at least 16 tokens")
    target, draft = resolve_pair(args)
    if args.no_draft:
        draft = None
    plan = plan_pair(target, draft, args.ctx, args.ngl, args.ngld, args.kv_type)
    if args.json:
        json.dump(_payload(plan), sys.stdout)
        sys.stdout.write("\n")
    else:
        _print_report(sys.stdout, plan)
    # Scripts can act on the verdict: 1 when the pair does not fit (as `models check` does for an incompatible pair).
    return 1 if plan.verdict.status == DOES_NOT_FIT else 0


def _mib(n: int) -> str:
    """A cell of the table's MiB columns (one fixed unit, so the column lines up and sums)."""
    return f"{n / MIB:,.1f}"


def _print_report(out: TextIO, plan: MemoryPlan) -> None:
    breakdown, hardware, verdict = plan.breakdown, plan.hardware, plan.verdict
    request = breakdown.request
    assert request is not None  # estimate_pair always records it
    names = request.target.name + (f" + {request.draft.name}" if request.draft else " (no draft model)")
    out.write(f"memory estimate: {names}\n")
    layers = f"target {gpu_layer_count(request.target, request.n_gpu_layers)}/{request.target.layer_slots()}"
    if request.draft:
        layers += f", draft {gpu_layer_count(request.draft, request.n_gpu_layers_draft)}/{request.draft.layer_slots()}"
    if plan.offload is not None:  # the line the window's meter shows too
        layers += f" ({plan.offload.describe()})"
    out.write(f"context {request.n_ctx}, KV cache {request.kv_type}, GPU layers: {layers}\n\n")
    out.write(f"{'component':<24} {'device':<6} {'MiB':>10} {'reserved MiB':>13}\n")
    for c in breakdown.components:
        reserved = _mib(c.reserved_bytes) if c.reserved_bytes > c.bytes else ""
        out.write(f"{c.label:<24} {c.device.value:<6} {_mib(c.bytes):>10} {reserved:>13}\n")
    for device, total in breakdown.totals.items():
        out.write(f"{'total ' + device.value:<24} {'':<6} {_mib(total):>10}\n")
    cached = breakdown.reclaimable_on(Device.CPU)
    if cached:
        out.write(
            f"(plus {format_bytes(cached)} of weight file pages that RSS shows while memory is plentiful; "
            "the kernel drops them under pressure)\n"
        )
    out.write("\nbudget\n")
    ram_free, ram_total = format_bytes(hardware.cpu_budget_bytes), format_bytes(hardware.ram_total_bytes)
    out.write(f"  cpu: {ram_free} available RAM (of {ram_total} total)\n")
    out.write(f"  backends: {hardware.backend_words}\n")
    if hardware.gpu_budget_bytes is not None:
        gpu = hardware.offload_device
        memory = "VRAM"
        if hardware.gpu_shares_ram:
            metal = gpu is not None and gpu.backend == "Metal"
            memory = "unified memory (Metal's working set)" if metal else "memory shared with RAM"
        out.write(f"  gpu: {format_bytes(hardware.gpu_budget_bytes)} free {memory} on {hardware.gpu_name}\n")
        if hardware.gpu_shares_ram:
            out.write("  (unified memory: what the GPU holds is counted in RAM too, once)\n")
    elif hardware.gpu_backends or hardware.gpu_offload_supported:  # a CPU-only build: the backends line says why
        out.write(f"  gpu: none usable: {hardware.gpu_unusable_reason}\n")
    chosen = hardware.offload_choice.words()
    if chosen is not None:
        out.write(f"  gpu device: {chosen}\n")
    out.write(f"\nverdict: {verdict.status.replace('_', ' ')}\n")
    for d in verdict.devices:
        if d.headroom_bytes is None:
            out.write(f"  {d.device.value}: {d.status.replace('_', ' ')}, {format_bytes(d.needed_bytes)} needed\n")
        else:
            out.write(
                f"  {d.device.value}: {d.status.replace('_', ' ')}, {format_bytes(d.needed_bytes)} needed, "
                f"{format_bytes(d.headroom_bytes)} headroom\n"
            )
    if verdict.advice:
        out.write("advice:\n")
        for line in verdict.advice:
            out.write(f"  - {line}\n")
    for note in plan.all_notes:
        out.write(f"note: {note}\n")


def _payload(plan: MemoryPlan) -> dict[str, Any]:
    breakdown, hardware, verdict = plan.breakdown, plan.hardware, plan.verdict
    request = breakdown.request
    assert request is not None
    return {
        "target": request.target.name,
        "draft": request.draft.name if request.draft else None,
        "n_ctx": request.n_ctx,
        "kv_type": request.kv_type,
        "n_gpu_layers": request.n_gpu_layers,
        "n_gpu_layers_draft": request.n_gpu_layers_draft,
        "gpu_layers_auto": plan.offload.describe() if plan.offload is not None else None,
        "components": [
            {
                "kind": c.kind.value,
                "device": c.device.value,
                "bytes": c.bytes,
                "reserved_bytes": c.reserved_bytes,
                "reclaimable_bytes": c.reclaimable_bytes,
                "measured": c.measured,
            }
            for c in breakdown.components
        ],
        "totals": {device.value: total for device, total in breakdown.totals.items()},
        "total_bytes": breakdown.total_bytes,
        "budget": {
            "cpu_bytes": hardware.cpu_budget_bytes,
            "ram_total_bytes": hardware.ram_total_bytes,
            "gpu_bytes": hardware.gpu_budget_bytes,
            "gpu_unusable_reason": hardware.gpu_unusable_reason,
            "gpu_offload_supported": hardware.gpu_offload_supported,
            "gpus": [g.name for g in hardware.gpus],
            # Every device the llama.cpp build lists (ggml), CPU included; the GPU figures come from here.
            "devices": [d.to_json() for d in hardware.devices],
            "backends": list(hardware.backends),
            "gpu_device": hardware.offload_choice.to_json(),
            "gpu_shares_ram": hardware.gpu_shares_ram,
        },
        "verdict": {
            "status": verdict.status,
            "devices": [
                {
                    "device": d.device.value,
                    "status": d.status,
                    "needed_bytes": d.needed_bytes,
                    "budget_bytes": d.budget_bytes,
                    "headroom_bytes": d.headroom_bytes,
                    "advice": list(d.advice),
                }
                for d in verdict.devices
            ],
            "advice": list(verdict.advice),
        },
        "notes": list(plan.all_notes),
    }
