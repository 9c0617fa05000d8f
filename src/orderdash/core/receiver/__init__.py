"""The service's callbacks, taken as hints (docs/receiver.md): a callback says "read this order
now", never what the order is. Split by job: `parse` (the body, JSON or form-encoded, bounded),
`guard` (the allow-list, the source behind a proxy, the rate bound per source), `coalesce` (a
burst of callbacks for one order is one read) and `compare` (the body against getOrder's
answer). The use case that runs them is `core/usecases/receive.py`."""

#: Largest body taken (the service's callback is well under 1 KiB); longer: 413, journaled.
MAX_BODY_BYTES = 16 << 10
