"""Files a person brings into a chat: the record of one, its sections, and (later) how it enters the context."""
