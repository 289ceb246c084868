"""The step view: a reply replayed one verify step at a time (timeline, card, player, slow motion, export)."""
