"""orderdash: a terminal dashboard for the orders of a cryptocurrency payment service."""

__version__ = "0.1.0"
