"""Tool (function) calls as pure data: what a client offers, what the model calls, and reading calls out of text.

:mod:`.records` holds the records that cross the server boundary
(:class:`ToolSpec`, :class:`ToolCall`, :class:`ToolChoice`) with their one
OpenAI mapping; :mod:`.hermes` reads the Qwen/Hermes ``<tool_call>`` format
out of a model's reply, whole or as it streams, and :mod:`.reader` adds the
whole reply that is one bare or fenced call's JSON (what small models write);
:mod:`.turns` holds calls as turns of a conversation (the user's answer, a
call's outcome, how both are stored in a message's meta, a chat's tool choices).
"""
