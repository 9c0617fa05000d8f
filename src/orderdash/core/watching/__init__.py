"""The orders being watched: the list kept on disk, and the dashboard's state."""
