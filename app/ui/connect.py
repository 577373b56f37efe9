"""Choosing a provider and model at start, and making clients for them.

Clients are made lazily (on the first prompt), so starting the app sends nothing. The offline
demo provider gets its loopback server started the first time it is used.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import TYPE_CHECKING

from app.api_keys import require_api_key
from app.config import Config, ProviderConfig
from app.providers.client import ProviderClient
from app.state import State

if TYPE_CHECKING:
    from app.demo.server import DemoServer


def pick_provider(config: Config, explicit: str | None, state: State) -> ProviderConfig:
    """`--provider`, else the one used last time (if still configured), else the default."""
    if explicit is not None:
        return config.provider(explicit)
    if state.provider and state.provider in config.providers:
        return config.providers[state.provider]
    return config.provider(None)


def pick_model(provider: ProviderConfig, explicit: str | None, state: State) -> str:
    if explicit:
        return explicit
    if state.provider == provider.name and state.model:
        return state.model
    return provider.model


class ClientMaker:
    """Makes a ProviderClient per provider; owns the demo server if one was started."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._demo: DemoServer | None = None

    def resolve(self, provider: ProviderConfig) -> ProviderConfig:
        """The demo's base URL is only known once its server listens."""
        from app.demo.server import is_demo, start_demo_server

        if provider.base_url or not is_demo(provider.name):
            return provider
        if self._demo is None:
            self._demo = start_demo_server()
        return replace(provider, base_url=self._demo.url)

    def connect(self, provider: ProviderConfig) -> ProviderClient:
        """Raises MissingApiKey (a ConfigError) when the provider's key variable is unset."""
        resolved = self.resolve(provider)
        return ProviderClient(
            resolved,
            require_api_key(resolved),
            idle_timeout=self.config.idle_timeout,
            connect_timeout=self.config.connect_timeout,
        )

    async def aclose(self) -> None:
        self.close_demo()

    def close_demo(self) -> None:
        if self._demo is not None:
            with contextlib.suppress(Exception):
                self._demo.close()
            self._demo = None


__all__ = ["ClientMaker", "pick_model", "pick_provider"]
