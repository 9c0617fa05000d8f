"""When to read what: the refresh policy, the request scheduler and the watcher of many orders."""
