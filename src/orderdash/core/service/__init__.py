"""The order service: its wire models, the HTTP client, the typed errors, JSON with exact
numbers and the token rules."""
