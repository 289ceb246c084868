"""The recorded ggml device readings in tests/fixtures/ggml_devices, as the records the engine makes of them.

Not a test module: tests/engine/memory/test_recorded_devices.py and tests/cli/test_memory_cli.py read them.
"""

from __future__ import annotations

import json
from typing import Any

from app.core.memory.devices import BackendDevice
from tests.paths import REPO_ROOT

READINGS = REPO_ROOT / "tests" / "fixtures" / "ggml_devices"


def reading(backend: str) -> dict[str, Any]:
    """One backend's recorded reading: ``backends`` (ggml's registry) and ``devices`` (its device list)."""
    data = json.loads((READINGS / f"{backend}.json").read_text())
    assert isinstance(data, dict)
    return data


def devices_of(backend: str) -> tuple[BackendDevice, ...]:
    """The reading's devices as records; every recorded device must be usable."""
    parsed = [BackendDevice.from_json(d) for d in reading(backend)["devices"]]
    assert all(d is not None for d in parsed)
    return tuple(d for d in parsed if d is not None)


def backends_of(backend: str) -> tuple[str, ...]:
    """The reading's registered backends."""
    return tuple(reading(backend)["backends"])
