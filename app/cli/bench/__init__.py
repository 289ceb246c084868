"""The measuring commands: `bench` (the interleaved benchmark), `bench-threads` (auto against fixed thread
counts beside busy processes) and `preflight` (this machine's costs and the predicted speedup, before chatting)."""
