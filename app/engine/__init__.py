"""Adapters to real things: llama.cpp, GGUF files, the Hub, NVML and psutil, SQLite.

Each sub-package wraps one outside thing behind plain Python types the core and
the GUI understand. See docs/architecture.md.
"""
