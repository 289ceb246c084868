"""``python -m app``: the same command line as ``tandem`` and ``python main.py``."""

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
