"""The settings, the top of the core (they name every feature's options): `model.py` the
`Settings` model and its checks, `sources.py` the layers they are read from."""
