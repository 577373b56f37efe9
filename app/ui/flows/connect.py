"""Choosing a provider and model at start, and making clients for them.

Clients are made lazily (on the first prompt), so starting the app sends nothing. The offline
demo provider gets its loopback server started the first time it is used.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from app.demo.names import is_demo
from app.settings.api_keys import (
    MissingApiKey,
    SessionKeys,
    key_missing_line,
    session_or_environment_key,
)
from app.settings.config import Config, ProviderConfig
from app.settings.state import State

# Seconds at least between two takes of a streaming answer's reads (one read per token): half
# the render clock's shortest frame (1/15 s, app/ui/render_clock.py), so no frame waits for
# text already read, and the loop is woken 30 times a second at most instead of for every
# token (200 a second at 200 tok/s). Reads are timed on the HTTP thread as they arrive, so
# TTFT, speed and the inspector's timeline are not moved by it.
TAKE_EVERY = 1 / 30

if TYPE_CHECKING:
    from app.demo.server import DemoServer
    from app.providers.client import ProviderClient


@dataclass(frozen=True, slots=True)
class StartChoice:
    """The provider and model the app starts on, and why."""

    provider: ProviderConfig
    model: str
    last_used: bool = False  # the choice remembered in state.toml won over the config's
    config_changed: bool = False  # the config's choice changed since then, so it won instead
    learn: bool = False  # state.toml should be written now


def start_choice(
    config: Config, provider: str | None, model: str | None, state: State
) -> StartChoice:
    """`--provider`/`--model`, else the choice remembered last time (if its provider is still
    configured), else the config's (its `default`, else the first provider whose key is set).
    What the config said when the choice was remembered is compared with what it says now: a
    changed `default` or provider `model` wins over the remembered choice (as it does for
    `triptych ask`)."""
    remembered = config.providers.get(state.provider) if state.provider else None
    old_file = remembered is not None and state.config_default is None  # before it was kept
    changed = False
    if provider is not None:
        chosen = config.provider(provider)
    elif (
        remembered is not None
        and not old_file
        and config.default_named  # else the default was only worked out: last used wins
        and state.config_default != config.default
    ):
        chosen = config.provider(None)
        changed = chosen.name != remembered.name
    else:
        chosen = remembered if remembered is not None else config.provider(None)
    if model:
        picked = model
    elif changed or state.provider != chosen.name or not state.model:
        picked = chosen.model
    elif state.config_model is not None and state.config_model != chosen.model:
        picked = chosen.model  # the provider's model was edited since
        changed = state.model != chosen.model
    else:
        picked = state.model
    stale = remembered is not None and state.config_default != config.default
    own = config.provider(provider)
    configs_own = (own.name, model or own.model)
    return StartChoice(
        chosen,
        picked,
        last_used=(chosen.name, picked) != configs_own,
        config_changed=changed,
        # Written now: a notice is said once, and an old or stale file learns the config.
        learn=changed or (provider is None and stale),
    )


class ClientMaker:
    """Makes a ProviderClient per provider; owns the demo server if one was started."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._demo: DemoServer | None = None
        self.session_keys = SessionKeys()  # "Set a key until you quit…": memory only

    def resolve(self, provider: ProviderConfig) -> ProviderConfig:
        """The demo's base URL is only known once its server listens."""
        if provider.base_url or not is_demo(provider.name):
            return provider
        from app.demo.server import start_demo_server

        if self._demo is None:
            self._demo = start_demo_server()
        return replace(provider, base_url=self._demo.url)

    def connect(self, provider: ProviderConfig) -> ProviderClient:
        """Raises MissingApiKey (a ConfigError) when the provider's key variable is unset."""
        from app.providers.client import ProviderClient  # httpx: not before the first prompt

        resolved = self.resolve(provider)
        return ProviderClient(
            resolved,
            session_or_environment_key(resolved, self.session_keys),
            idle_timeout=self.config.idle_timeout,
            connect_timeout=self.config.connect_timeout,
            keep_stream=self.config.keep_stream_bytes,
            take_every=TAKE_EVERY,
        )

    def key_missing(self, provider: ProviderConfig) -> str | None:
        """`key missing: set $X` when the provider's key is nowhere (its variable, the file,
        one given in the app), said before anything is sent or stored; else None."""
        try:
            session_or_environment_key(provider, self.session_keys)
        except MissingApiKey:
            return key_missing_line(provider)
        return None

    async def aclose(self) -> None:
        self.close_demo()

    def close_demo(self) -> None:
        if self._demo is not None:
            with contextlib.suppress(Exception):
                self._demo.close()
            self._demo = None


__all__ = ["ClientMaker", "StartChoice", "start_choice"]
