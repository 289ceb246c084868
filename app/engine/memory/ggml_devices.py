"""The backend devices of the llama.cpp build Tandem loads, read from its libggml.

llama-cpp-python 0.3.36 does not bind ggml's device registry, so this module
binds the calls it needs with ctypes against the libggml the wheel ships
(the one ``llama_cpp._ggml`` already loaded, beside libllama):
``ggml_backend_dev_count``/``_get`` (in libggml) and ``_name``,
``_description``, ``_type``, ``_memory`` (in libggml-base, which libggml
depends on, so the lookup through libggml's handle finds them), and the
backend registry (``ggml_backend_reg_count``/``_get``/``_name``: which
backends the build has, "CPU" alone in a CPU build, even where a GPU
backend finds no device). Each device
becomes a :class:`~app.core.memory.devices.BackendDevice`; every rule about
them is in :mod:`app.core.memory.devices`.

``TANDEM_GPU_BUDGET_MB`` caps the free memory read for each device that holds
layers (a whole number of MiB), so "auto" plans for less than the device has.

A library that cannot be opened or lacks a call is a normal answer here (an
older or newer wheel): :func:`read_devices` raises :class:`GgmlUnavailableError`
with the reason, and callers fall back to no device list.
"""

from __future__ import annotations

import ctypes
import logging
import os
from dataclasses import dataclass
from functools import cache
from typing import Any

from app.core.memory.devices import BackendDevice, cap_free_memory, kind_of_ggml_type

GPU_BUDGET_ENV = "TANDEM_GPU_BUDGET_MB"
_MIB = 1 << 20
log = logging.getLogger(__name__)

# The device the user wants every GPU layer on, by ggml's name ("CUDA1", "Vulkan0"); unset: llama.cpp's default.
GPU_DEVICE_VARIABLE = "TANDEM_GPU_DEVICE"


class GgmlUnavailableError(Exception):
    """ggml's device list cannot be read; ``str`` is the reason."""


def named_gpu_device() -> str:
    """The device ``TANDEM_GPU_DEVICE`` names ("" when unset)."""
    return os.environ.get(GPU_DEVICE_VARIABLE, "").strip()


@dataclass(frozen=True, slots=True)
class _Calls:
    count: Any
    get: Any
    name: Any
    description: Any
    type: Any
    memory: Any


def _library() -> ctypes.CDLL:
    try:
        from llama_cpp import _ggml
    except (ImportError, OSError) as exc:
        raise GgmlUnavailableError(f"the llama.cpp library could not be loaded: {exc}") from exc
    # A handle of our own on the already loaded library: setting argtypes on its
    # functions does not touch llama_cpp's own bindings.
    return ctypes.CDLL(_ggml.libggml._name)


@cache
def _registry() -> tuple[Any, Any, Any]:
    try:
        lib = _library()
        count, get, name = lib.ggml_backend_reg_count, lib.ggml_backend_reg_get, lib.ggml_backend_reg_name
    except (AttributeError, OSError) as exc:
        raise GgmlUnavailableError(f"this llama.cpp build does not list its backends: {exc}") from exc
    count.argtypes, count.restype = [], ctypes.c_size_t
    get.argtypes, get.restype = [ctypes.c_size_t], ctypes.c_void_p
    name.argtypes, name.restype = [ctypes.c_void_p], ctypes.c_char_p
    return count, get, name


def read_backends() -> tuple[str, ...]:
    """The backends the build registered ("CPU", "CUDA", "Vulkan", "Metal"...); raises :class:`GgmlUnavailableError`."""
    count, get, name = _registry()
    handles = (get(index) for index in range(int(count())))
    return tuple(_text(name(handle)) for handle in handles if handle)


@cache
def _calls() -> _Calls:
    try:
        lib = _library()
        calls = _Calls(
            count=lib.ggml_backend_dev_count,
            get=lib.ggml_backend_dev_get,
            name=lib.ggml_backend_dev_name,
            description=lib.ggml_backend_dev_description,
            type=lib.ggml_backend_dev_type,
            memory=lib.ggml_backend_dev_memory,
        )
    except (AttributeError, OSError) as exc:
        raise GgmlUnavailableError(f"this llama.cpp build does not list its devices: {exc}") from exc
    calls.count.argtypes, calls.count.restype = [], ctypes.c_size_t
    calls.get.argtypes, calls.get.restype = [ctypes.c_size_t], ctypes.c_void_p
    for text_call in (calls.name, calls.description):
        text_call.argtypes, text_call.restype = [ctypes.c_void_p], ctypes.c_char_p
    calls.type.argtypes, calls.type.restype = [ctypes.c_void_p], ctypes.c_int
    size_p = ctypes.POINTER(ctypes.c_size_t)
    calls.memory.argtypes, calls.memory.restype = [ctypes.c_void_p, size_p, size_p], None
    return calls


def read_devices() -> tuple[BackendDevice, ...]:
    """Every device the build lists, in ggml's order; raises :class:`GgmlUnavailableError`."""
    calls = _calls()
    devices = []
    for index in range(int(calls.count())):
        handle = calls.get(index)
        if not handle:
            continue
        kind = kind_of_ggml_type(int(calls.type(handle)))
        if kind is None:  # a device type newer than this code: not one it can plan for
            continue
        free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
        calls.memory(handle, ctypes.byref(free), ctypes.byref(total))
        devices.append(
            BackendDevice(
                name=_text(calls.name(handle)),
                description=_text(calls.description(handle)),
                kind=kind,
                free_bytes=int(free.value),
                total_bytes=int(total.value),
            )
        )
    return cap_free_memory(devices, budget_cap_bytes())


def budget_cap_bytes() -> int | None:
    """:data:`GPU_BUDGET_ENV` in bytes; None when unset, or not a whole number (said once in the log)."""
    text = os.environ.get(GPU_BUDGET_ENV, "").strip()
    if not text:
        return None
    if not text.isdigit():
        _warn_once(text)
        return None
    return int(text) * _MIB


@cache
def _warn_once(text: str) -> None:
    log.warning("%s=%r is not a whole number of MiB; the devices' own free memory is used", GPU_BUDGET_ENV, text)


def _text(value: bytes | None) -> str:
    return value.decode("utf-8", errors="replace") if value else ""
