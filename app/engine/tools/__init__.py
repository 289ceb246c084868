"""Adapters that run tools for the model: MCP servers started on demand (:mod:`.mcp_client`)."""
