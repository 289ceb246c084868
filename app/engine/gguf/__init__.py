"""Reading GGUF files: the header parser and what it tells about a model and its tokenizer."""
