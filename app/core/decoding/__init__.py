"""Speculative decoding itself: sampling, verification, drafters and the loop.

The decoder drives a drafter and a target behind the :class:`~app.core.decoding.model_port.CausalLM`
port and yields one :class:`~app.core.decoding.events.StepEvent` per verify step; everything it
needs to do so lives here and nowhere else.
"""
