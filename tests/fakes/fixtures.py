"""Pytest fixtures for the fake provider; tests/conftest.py imports them for every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.provider import FakeProvider


@pytest.fixture
def fake_provider() -> Iterator[FakeProvider]:
    """A fresh loopback provider with an empty reply queue, closed after the test."""
    with FakeProvider() as fake:
        yield fake
