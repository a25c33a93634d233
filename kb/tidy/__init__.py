"""kb check: the tidy check over the knowledge (see ARCHITECTURE.md)."""
