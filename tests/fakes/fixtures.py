"""Pytest fixtures for the fake provider; tests/conftest.py imports them for every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.wire.engine import Api
from tests.fakes.provider import FakeProvider


@pytest.fixture
def fake_provider() -> Iterator[FakeProvider]:
    """A fresh loopback provider with an empty reply queue, closed after the test."""
    with FakeProvider() as fake:
        yield fake


@pytest.fixture
def fakes() -> Iterator[dict[Api, FakeProvider]]:
    """One loopback provider per format, each its own server: concurrent requests from a
    comparison arrive in any order, so one server could not tell whose reply is whose."""
    servers = {api: FakeProvider() for api in Api}
    yield servers
    for server in servers.values():
        server.close()
