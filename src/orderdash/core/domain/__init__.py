"""What an order means to a person: payment state, expiry, status tones, display text."""
