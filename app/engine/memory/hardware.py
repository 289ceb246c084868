"""What memory this machine offers: system RAM (psutil) and the llama.cpp build's devices (ggml).

The GPU llama.cpp will use, and its free memory, come from ggml's own device
list (:mod:`app.engine.memory.ggml_devices`), whatever the backend: CUDA,
Vulkan, Metal, ROCm/HIP, SYCL; the device ``TANDEM_GPU_DEVICE`` names, else
llama.cpp's default (:func:`~app.core.memory.devices.choose_offload_device`).
On unified memory (Metal, an integrated GPU) the GPU's share comes out of the
same RAM: :attr:`HardwareBudget.gpu_shares_ram`. NVML (NVIDIA only) adds only what ggml does
not say: the memory this process already holds on the card and the driver
version. A GPU that NVML sees but the build does not list is named in the
reason no GPU is usable, never budgeted: llama.cpp would not use it.

A missing GPU is a normal answer, not an error: :class:`HardwareBudget`
carries ``gpu_absent_reason`` ("no NVIDIA driver...") and the verdict uses
it in its advice. NVML values go through :func:`parse_nvml`, a pure function
over a plain dict, so recorded values from a real GPU test the same code that
reads a live one. Whether llama.cpp could use a GPU at all is a separate
question, answered by the wheel itself (``llama_supports_gpu_offload``).
"""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from app.core.display.wording import Phrase, Words
from app.core.memory.devices import (
    NO_GPU_BACKEND,
    BackendDevice,
    OffloadChoice,
    backend_words,
    choose_offload_device,
    device_budget_bytes,
    gpu_backends,
)
from app.engine.llama.model import gpu_offload_supported
from app.engine.memory.ggml_devices import GgmlUnavailableError, named_gpu_device, read_backends, read_devices


class NvmlUnavailableError(Exception):
    """NVML cannot be used here; ``str`` is the reason shown to the user."""


@dataclass(frozen=True, slots=True)
class GpuInfo:
    """One NVIDIA GPU as NVML reports it."""

    index: int
    name: str
    total_bytes: int
    free_bytes: int
    used_bytes: int
    process_bytes: int | None  # this process's use; None when the driver does not say
    uuid: str = ""


@dataclass(frozen=True, slots=True)
class HardwareBudget:
    """RAM and VRAM figures, and whether llama.cpp can offload.

    ``ram_held_bytes`` is memory this process already holds for loaded
    models; it counts back into the CPU budget when judging a pair that is
    already loaded (available RAM no longer includes it).
    """

    ram_total_bytes: int
    ram_available_bytes: int
    process_rss_bytes: int
    gpus: tuple[GpuInfo, ...] = ()
    gpu_absent_reason: str | None = None
    gpu_offload_supported: bool = False
    driver_version: str | None = None
    cpu_repack_types: frozenset[str] = field(default_factory=frozenset)
    ram_held_bytes: int = 0
    devices: tuple[BackendDevice, ...] = ()  # ggml's list, CPU included; empty when it could not be read
    backends: tuple[str, ...] = ()  # ggml's registered backends ("CPU", "Vulkan"); empty when unread
    named_device: str = ""  # TANDEM_GPU_DEVICE: the device the user wants the layers on

    @property
    def offload_choice(self) -> OffloadChoice:
        """The device among ggml's that GPU layers go to, and how it was chosen."""
        return choose_offload_device(self.devices, self.named_device)

    @property
    def gpu_backends(self) -> tuple[str, ...]:
        """The build's GPU backends ("CUDA", "Vulkan", "Metal"); empty for a CPU-only build."""
        return gpu_backends(self.backends)

    @property
    def backend_words(self) -> Words | Phrase:
        """Which backends the build has ("Vulkan (GPU) and CPU", or CPU only and how to get a GPU one)."""
        return backend_words(self.backends)

    @property
    def gpu_shares_ram(self) -> bool:
        """Whether the offload device's memory is system RAM (Metal's unified memory, an integrated GPU)."""
        device = self.offload_device
        return self.gpu_offload_supported and device is not None and device.shares_host_memory

    @property
    def offload_device(self) -> BackendDevice | None:
        """The device GPU layers go to, as ggml lists it (:attr:`offload_choice`); None without one."""
        return self.offload_choice.device

    @property
    def cpu_budget_bytes(self) -> int:
        """Available RAM (not total: other programs keep theirs) plus what we already hold."""
        return self.ram_available_bytes + self.ram_held_bytes

    @property
    def gpu_budget_bytes(self) -> int | None:
        """Free memory of :attr:`offload_device` plus what this process holds there; None without a usable GPU."""
        if not self.gpu_offload_supported:
            return None
        device = self.offload_device
        if device is None:
            return None
        return device_budget_bytes(device, self.gpu_held_bytes)

    @property
    def gpu_held_bytes(self) -> int:
        """What NVML says this process holds on :attr:`offload_device` (0 when NVML does not know the card)."""
        device = self.offload_device
        if device is None:
            return 0
        return sum(g.process_bytes or 0 for g in self.gpus if g.name == device.description)

    @property
    def gpu_unusable_reason(self) -> str | None:
        """Why models cannot go to a GPU here, or None when they can."""
        if not self.gpu_offload_supported:
            return str(NO_GPU_BACKEND)
        if self.offload_device is None:
            return self.gpu_absent_reason or "no GPU found"
        return None

    @property
    def gpu_name(self) -> str | None:
        """The name of the GPU layers go to, for labels ("NVIDIA GeForce RTX 4060", "Apple M2")."""
        device = self.offload_device
        if device is None:
            return None
        return device.description or device.name


def probe_hardware(ram_held_bytes: int = 0) -> HardwareBudget:
    """Probe RAM, the build's devices, NVIDIA GPUs and llama.cpp's offload support; never raises for a missing GPU."""
    memory = psutil.virtual_memory()
    rss = psutil.Process().memory_info().rss
    try:
        devices = read_devices()
        ggml_says = "llama.cpp lists no GPU in this build"
    except GgmlUnavailableError as exc:
        devices, ggml_says = (), str(exc)
    try:
        backends = read_backends()
    except GgmlUnavailableError:
        backends = ()
    try:
        gpus, driver = parse_nvml(read_nvml(), os.getpid())
        nvml_says = "NVML found no NVIDIA GPU"
    except NvmlUnavailableError as exc:
        gpus, driver, nvml_says = (), None, str(exc)
    named = named_gpu_device()
    reason = None
    if choose_offload_device(devices, named).device is None:
        # A card NVML sees is named, not budgeted: this build would not put layers on it.
        nvml_says = f"NVML sees {', '.join(g.name for g in gpus)}" if gpus else nvml_says
        reason = f"{ggml_says}; {nvml_says}"
    return HardwareBudget(
        ram_total_bytes=int(memory.total),
        ram_available_bytes=int(memory.available),
        process_rss_bytes=int(rss),
        gpus=gpus,
        gpu_absent_reason=reason,
        gpu_offload_supported=gpu_offload_supported(),
        driver_version=driver,
        cpu_repack_types=cpu_repack_types(),
        ram_held_bytes=ram_held_bytes,
        devices=devices,
        backends=backends,
        named_device=named,
    )


def build_backend_words() -> Words | Phrase:
    """Which backends the running llama.cpp build has, read from ggml's registry (no memory probed)."""
    try:
        return backend_words(read_backends())
    except GgmlUnavailableError:
        return backend_words(())


def read_nvml() -> dict[str, Any]:
    """Raw NVML values as a plain dict (the shape :func:`parse_nvml` reads); raises :class:`NvmlUnavailableError`."""
    try:
        import pynvml
    except ImportError as exc:
        raise NvmlUnavailableError("nvidia-ml-py is not installed, so NVIDIA GPUs cannot be queried") from exc
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_LibraryNotFound as exc:
        raise NvmlUnavailableError("no NVIDIA driver (the NVML library is not installed)") from exc
    except pynvml.NVMLError_DriverNotLoaded as exc:
        raise NvmlUnavailableError("the NVIDIA driver is installed but not loaded") from exc
    except pynvml.NVMLError as exc:
        raise NvmlUnavailableError(f"NVML could not start: {exc}") from exc
    try:
        record: dict[str, Any] = {"driver_version": _text(pynvml.nvmlSystemGetDriverVersion()), "devices": []}
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
            processes = []
            # A CUDA process is listed as compute; some drivers list it as graphics too.
            for query in (pynvml.nvmlDeviceGetComputeRunningProcesses, pynvml.nvmlDeviceGetGraphicsRunningProcesses):
                try:
                    processes += [{"pid": p.pid, "usedGpuMemory": p.usedGpuMemory} for p in query(handle)]
                except pynvml.NVMLError:
                    continue
            record["devices"].append(
                {
                    "index": index,
                    "name": _text(pynvml.nvmlDeviceGetName(handle)),
                    "uuid": _text(pynvml.nvmlDeviceGetUUID(handle)),
                    "memory": {"total": memory.total, "free": memory.free, "used": memory.used},
                    "processes": processes,
                }
            )
        return record
    except pynvml.NVMLError as exc:
        raise NvmlUnavailableError(f"NVML failed while reading the GPUs: {exc}") from exc
    finally:
        pynvml.nvmlShutdown()


def parse_nvml(record: Mapping[str, Any], pid: int) -> tuple[tuple[GpuInfo, ...], str | None]:
    """GPUs and driver version from a :func:`read_nvml` record; ``pid``'s use per GPU."""
    gpus = []
    for device in record.get("devices", ()):
        memory = device["memory"]
        gpus.append(
            GpuInfo(
                index=int(device["index"]),
                name=_text(device["name"]),
                total_bytes=int(memory["total"]),
                free_bytes=int(memory["free"]),
                used_bytes=int(memory["used"]),
                process_bytes=_process_use(device.get("processes", ()), pid),
                uuid=_text(device.get("uuid", "")),
            )
        )
    driver = record.get("driver_version")
    return tuple(gpus), (_text(driver) if driver else None)


def process_gpu_bytes(pid: int | None = None) -> int | None:
    """VRAM ``pid`` (default: this process) holds over all GPUs; None when unknown or no GPU."""
    try:
        gpus, _ = parse_nvml(read_nvml(), os.getpid() if pid is None else pid)
    except NvmlUnavailableError:
        return None
    uses = [g.process_bytes for g in gpus]
    if not uses or any(u is None for u in uses):
        return None
    return sum(u for u in uses if u is not None)


def cpu_repack_types() -> frozenset[str]:
    """Quantisation types llama.cpp's CPU backend copies into a repacked layout here.

    Checked on x86-64 with AVX2 (Q4_0 and Q4_K repacked; Q8_0, Q5_0, Q6_K
    not). The ARM set follows ggml's repack kernels and is unverified.
    Repacking moves bytes from the page cache into anonymous memory; it
    does not change what a model needs, only where RSS shows it.
    """
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64"):
        return frozenset({"Q4_0", "Q4_K", "IQ4_NL"}) if "avx2" in _cpu_flags() else frozenset()
    if machine in ("aarch64", "arm64"):
        return frozenset({"Q4_0", "IQ4_NL"})
    return frozenset()


def _cpu_flags() -> Sequence[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return line.split(":", 1)[1].split()
    except OSError:
        pass
    return ()


def _process_use(processes: Sequence[Mapping[str, Any]], pid: int) -> int | None:
    """Bytes ``pid`` uses on one GPU: 0 when it is not listed, None when the driver hides the figure."""
    total = 0
    seen: set[tuple[int, int | None]] = set()
    for proc in processes:
        if int(proc["pid"]) != pid:
            continue
        used = proc.get("usedGpuMemory")
        key = (pid, used)
        if key in seen:  # the same entry in both the compute and graphics lists
            continue
        seen.add(key)
        if used is None:
            return None
        total += int(used)
    return total


def _text(value: Any) -> str:
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)
