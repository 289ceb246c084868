"""The window in the user's language: Qt translators installed at start, the German catalogue built from translations/."""
