"""llama.cpp through llama-cpp-python: the model adapter, a loaded pair, chat templates, quantising."""
