"""The model library: local files, installed packages, remembered inspections, draft ranking."""
