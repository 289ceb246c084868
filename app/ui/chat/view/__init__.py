"""The conversation view: the transcript that colours tokens, its Markdown, its thinking sections and its menus."""
