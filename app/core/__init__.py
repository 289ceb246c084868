"""The pure core: the algorithm and the arithmetic, in Python and numpy only.

Nothing here imports Qt, llama.cpp, hardware or network libraries (import-linter
enforces it), so every rule can be tested with hand-built inputs. The families:
``decoding`` (the speculative loop), ``adaptive`` (choosing the draft length),
``memory`` (will a pair fit), ``pairing`` (which draft serves which target),
``bench`` (benchmark aggregation). See docs/architecture.md.
"""
