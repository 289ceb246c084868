"""The live statistics panel and the charts it and the tools draw."""
