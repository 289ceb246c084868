"""Remote engines: an OpenAI-compatible server (llama-server, vLLM, any other) in place of the local pair."""
