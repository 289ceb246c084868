"""The Python 3.12 step's environment stamp (the step itself is ``python -m tests.packaging.python312``)."""

from __future__ import annotations

from tests.packaging.python312 import stamp_text


def test_stamp_follows_requirements_and_interpreter() -> None:
    base = stamp_text(["numpy>=1.26"], "3.12.1")
    assert stamp_text(["numpy>=1.26"], "3.12.1") == base
    assert stamp_text(["numpy>=2"], "3.12.1") != base
    assert stamp_text(["numpy>=1.26"], "3.12.2") != base
