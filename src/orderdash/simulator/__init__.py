"""A faithful simulator of the order service (docs/service-api.md), for tests, demos and
development.

    sim = Simulator(seed=7)                       # demo orders included (DEMO_TOKENS)
    with SimulatorServer(sim, bearer_token="secret") as server:
        ...  # server.base_url serves /order/<token>/ and /orders/api/<token>/rates

Nothing here imports textual or rich.
"""

from orderdash.simulator.app import SimulatedReset, create_app
from orderdash.simulator.demo import DEMO_TOKENS
from orderdash.simulator.server import SimulatorServer, run_simulator
from orderdash.simulator.state import (
    COINS,
    FIATS,
    Fault,
    Simulator,
    UnknownOrderError,
)

__all__ = [
    "COINS",
    "DEMO_TOKENS",
    "FIATS",
    "Fault",
    "SimulatedReset",
    "Simulator",
    "SimulatorServer",
    "UnknownOrderError",
    "create_app",
    "run_simulator",
]
