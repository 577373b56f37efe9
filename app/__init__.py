"""Triptych: a terminal chat app that shows exactly what an LLM provider streams back."""

__version__ = "0.1.0"
