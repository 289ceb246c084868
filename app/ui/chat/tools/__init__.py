"""MCP tools in the chat: the list of tools, the questions about a call, and the loop that runs the calls."""
