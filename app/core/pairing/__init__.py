"""Which draft can serve which target: the curated catalog and the compatibility rules."""
