"""Screens of the dashboard."""
