"""Widgets, one family per module."""
