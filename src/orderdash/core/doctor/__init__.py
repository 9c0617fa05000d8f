"""`orderdash doctor`'s checks, one job a module: the results (`result.py`), the service's hosts
and clock (`hosts.py`), the log-in and the `bearer_token` header (`login.py`), and what is on
this side (`local.py`: the ledger, the callback URL, the budgets). The use case that runs them
in order is `core/usecases/doctor.py`."""
