"""A guard against reference-counting bugs in PySide6 6.12.0 on Python 3.11.

PySide6 6.12.0 returns ``None`` from every void method (``setText``,
``processEvents``, ``QTimer.start``...) and ``True`` from
``SignalInstance.emit`` without taking a new reference. On Python 3.12+
those objects are immortal and nothing happens; on Python 3.11 each call
drops their reference count by one, and after a few thousand calls the
interpreter aborts with "deallocating None" or "deallocating True or False".

:func:`guard_refcounts` measures a few calls; only if they really leak does
it add a large constant to the reference counts of ``None``, ``True`` and
``False``. These are static singletons CPython never frees, so the extra
references change nothing except that the counts can no longer reach zero
in the life of the process. The proper fix is a PySide6 without the bug.
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QObject, Signal

_HEADROOM = 1 << 40  # far more calls than any session will make
_applied = False


class _Probe(QObject):
    """A signal to emit and a void method to call, unconnected."""

    ping = Signal()


def calls_leak_references() -> bool:
    """True when void calls leak ``None`` or ``emit()`` leaks ``True`` (the PySide6 6.12.0 bugs)."""
    probe = _Probe()
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(8):
        probe.ping.emit()
        probe.setObjectName("probe")
    return sys.getrefcount(None) < none_before - 4 or sys.getrefcount(True) < true_before - 4


def guard_refcounts() -> bool:
    """Apply the workaround if this PySide6 needs it; True when it is in effect."""
    global _applied
    if _applied:
        return True
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12) or not calls_leak_references():
        return False
    for singleton in (None, True, False):
        ctypes.c_ssize_t.from_address(id(singleton)).value += _HEADROOM
    _applied = True
    return True
