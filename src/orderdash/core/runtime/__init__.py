"""Running the program: settings, the log file and the start-up switches."""
