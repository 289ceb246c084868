"""Adapters that run tools for the model: MCP servers started or reached on demand (:mod:`.mcp_client`,
:mod:`.mcp_process`, :mod:`.mcp_remote`), their file read (:mod:`.mcp_file`), and the tool loop every front end
shares (:mod:`.tool_loop`)."""
