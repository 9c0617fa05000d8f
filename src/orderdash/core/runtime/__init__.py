"""Running the program: the log file, the start-up switches, the collector's handling of bulk
objects (the settings are in `core/settings/`)."""
