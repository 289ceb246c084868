"""Tandem as an OpenAI-compatible server: the wire format, the one-engine queue, the HTTP routes.

``tandem serve`` puts the loaded pair (adaptive drafting unless a fixed
length is asked for) behind ``/v1/models``, ``/v1/chat/completions`` and
``/v1/completions``, so editors and scripts use it the way they use LM
Studio's or llama.cpp's local server, and see each token's origin.
"""
