"""The sidebar: the list of chats, its search, its actions and the undo bar."""
