"""The demonstration tools: A/B comparison, temperature sweep and pre-flight dialogs."""
