"""The order API core, grouped by job:

- `service/`: the order service's wire models, the HTTP client, the typed errors;
- `domain/`: what an order means to a person (payment state, expiry, status, display text);
- `polling/`: the refresh policy, the request scheduler and the watcher of many orders;
- `qr/`: the QR matrix, the server's image, what a code encodes;
- `watching/`: the watch list on disk and the dashboard's state (owned by the app);
- `runtime/`: settings, the log file, the start-up switches;
- `safetext.py`: server text made safe to show (used by all of the above).

Nothing under this package imports textual, rich, the TUI or the simulator
(tests/unit/test_layers.py).
"""
