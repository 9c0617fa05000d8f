"""The terminal every app the bench runs is given, in a module of its own: the start-up
children import it (through appkit) and nothing else of the bench's, so that they load what the
app itself loads and no more (`common` imports `importlib.metadata`, `subprocess`, `statistics`,
`tempfile`, ...: ~10 ms and ~1 MiB that the real `orderdash` does not load)."""

#: Terminal size of every app run: wide enough that the QR code is shown.
SIZE = (140, 48)
