"""The ground floor: the order service's wire models (the account's too), what a read returns,
the typed errors and JSON with exact numbers. Imports nothing else of the core but
`safetext`, so that every other folder may build on it."""
