"""What the tests of every kind share: scenes, faces, wallets, the browser, QR readers."""
