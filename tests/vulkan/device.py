"""The Vulkan device these tests run on, and why they skip without one.

Not a test module. The Vulkan layer's tests run in the Vulkan build's own
environment (``python -m tests.vulkan.step`` makes it and runs them there with
``GGML_VK_VISIBLE_DEVICES=0``); anywhere else, the suite's CPU build among
them, they skip with :data:`SKIP_REASON`.
"""

from __future__ import annotations

from app.core.memory.devices import BackendDevice
from app.engine.llama.model import gpu_offload_supported
from app.engine.memory.ggml_devices import GgmlUnavailableError, read_devices

SKIP_REASON = (
    "needs llama-cpp-python's Vulkan build and a Vulkan device: `python -m tests.vulkan.step` builds it "
    "(TANDEM_GPU=vulkan), keeps its environment in ~/.cache/tandem/venv-vulkan and runs these tests there "
    "with GGML_VK_VISIBLE_DEVICES=0 (lavapipe on a machine without a GPU)"
)


def vulkan_device() -> BackendDevice | None:
    """The first Vulkan device that takes layers in this interpreter's llama.cpp build, or None."""
    if not gpu_offload_supported():
        return None
    try:
        devices = read_devices()
    except GgmlUnavailableError:
        return None
    return next((d for d in devices if d.name.startswith("Vulkan") and d.holds_layers), None)
