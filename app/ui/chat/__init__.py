"""The conversation: the view that colours tokens, the panel around it, the sidebar, the flow controller."""
