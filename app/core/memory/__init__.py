"""Will a pair fit? llama.cpp's allocation rules as arithmetic, the estimate, and the verdict."""
