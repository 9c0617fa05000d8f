"""`orderdash rates`: one order read through Update Exchange rate (it needs the bearer token),
as `get` reads it otherwise."""

from __future__ import annotations

import argparse
import asyncio

from orderdash.cli.order import read_once
from orderdash.cli.render_order import OrderRead
from orderdash.core.model.results import Fetched
from orderdash.core.service.client import OrderClient


def run_rates(args: argparse.Namespace) -> OrderRead:
    return read_once(args, _refresh_rate)


def _refresh_rate(client: OrderClient, token: str) -> Fetched:
    async def fetch() -> Fetched:
        async with client:
            return await client.refresh_rate(token)

    return asyncio.run(fetch())
