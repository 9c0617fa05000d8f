"""QR codes: the module matrix, the server's image decoded, and what a code should encode."""
