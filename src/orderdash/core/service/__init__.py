"""The order service's transport: the HTTP client split by job, the log-in, the answers read
from the wire, the token rules (the models they fill are in `core/model/`)."""
