"""Shared fixtures. Each piece keeps its fixtures next to its fakes and imports them here."""

from tests.fakes.fixtures import fake_provider, fakes

__all__ = ["fake_provider", "fakes"]
