"""The order API core, grouped by job:

- `model/`: the order service's wire models, what a read returns, the typed errors, exact JSON;
- `service/`: the HTTP client and the log-in;
- `domain/`: what an order means to a person (payment state, expiry, status, display text);
- `polling/`: the refresh policy, the request scheduler and the watcher of many orders;
- `qr/`: the QR matrix, the server's image, what a code encodes;
- `watching/`: the watch list on disk and the dashboard's state (owned by the app);
- `runtime/`: the log file, the start-up switches;
- `settings/`: the settings, read from their layers (they know every feature: the top);
- `safetext.py`: server text made safe to show (used by all of the above).

Nothing under this package imports textual, rich, the TUI or the simulator, and each folder
imports only the folders below it (tests/unit/test_layers.py: `CORE_FLOORS`).
"""
