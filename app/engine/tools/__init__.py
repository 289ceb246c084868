"""Adapters that run tools for the model: MCP servers started on demand (:mod:`.mcp_client`), their file read
(:mod:`.mcp_file`), and the tool loop every front end shares (:mod:`.tool_loop`)."""
