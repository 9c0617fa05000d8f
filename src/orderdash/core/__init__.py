"""The order API core: models, client, errors, config and policies.

Nothing under this package imports textual or rich; a test checks it in a subprocess.
"""
