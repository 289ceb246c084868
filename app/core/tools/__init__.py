"""Tool (function) calls as pure data: what a client offers, what the model calls, and reading calls out of text.

:mod:`.records` holds the records that cross the server boundary
(:class:`ToolSpec`, :class:`ToolCall`, :class:`ToolChoice`) with their one
OpenAI mapping; :mod:`.call_stream` reads calls out of a model's reply, whole
or as it streams, in the dialect of its template (:mod:`.hermes` for the
``<tool_call>`` families, :mod:`.dialects` for Llama 3.x, Mistral and gpt-oss
harmony), and :mod:`.reader` adds the whole reply that is one bare or fenced
call's JSON (what small models write);
:mod:`.turns` holds calls as turns of a conversation (the user's answer, a
call's outcome, how both are stored in a message's meta, a chat's tool choices).
"""
