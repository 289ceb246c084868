"""Tandem's entry point: `python main.py` opens the app; subcommands run headless."""

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
