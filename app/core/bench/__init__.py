"""The benchmark's arithmetic: per-run records to summaries, and the report for people."""
