"""Where a provider's API key comes from: the only code that reads one.

Kept apart from the config schema so every key lookup is in one small place to audit. Messages
name the variable that should hold a key, never a key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.settings.config import Config, ConfigError, ProviderConfig
from app.settings.redaction import mcp_secrets, provider_secrets, shown_env_name, unique


class MissingApiKey(ConfigError):
    """The provider names a key variable that is not set; exit status 2 like any config error."""


def resolve_api_key(
    provider: ProviderConfig, environ: Mapping[str, str] | None = None
) -> str | None:
    """The key from `api_key_env` if that variable is set, else `api_key`, else None."""
    env = os.environ if environ is None else environ
    if provider.api_key_env and env.get(provider.api_key_env, "").strip():
        return env[provider.api_key_env].strip()
    return provider.api_key or None


def missing_key_message(provider: ProviderConfig) -> str:
    where = f" in {provider.source}" if provider.source else ""
    name = provider.api_key_env or ""
    if name != shown_env_name(name):  # a key pasted where the variable's name goes
        return (
            f"provider {provider.name!r} needs an API key: api_key_env{where} holds "
            f"{shown_env_name(name)}; it should name a variable, not hold the key — "
            "put the key in an environment variable and name that variable here"
        )
    return f"provider {provider.name!r} needs an API key: set {name} (named by api_key_env{where})"


def require_api_key(
    provider: ProviderConfig, environ: Mapping[str, str] | None = None
) -> str | None:
    """Like resolve_api_key, but a named variable that is unset raises MissingApiKey.
    None means the provider needs no key (a local server)."""
    key = resolve_api_key(provider, environ)
    if key is None and provider.api_key_env:
        raise MissingApiKey(missing_key_message(provider))
    return key


def found_key_variables(config: Config, environ: Mapping[str, str]) -> tuple[str, ...]:
    """The key variables that are set, of every provider the config knows (built in or not),
    in its order: what the welcome card says was found. Names only, never a value."""
    names = (p.api_key_env for p in config.providers.values() if p.api_key_env)
    return tuple(dict.fromkeys(name for name in names if environ.get(name, "").strip()))


@dataclass(slots=True)
class SessionKeys:
    """Keys given in the app ("Set a key until you quit…"), by the variable each stands in for.
    Held in memory only: never written to the config, the state, the history or a log, and
    scrubbed from whatever is shown, like a key from the environment."""

    _keys: dict[str, str] = field(default_factory=dict, repr=False)

    def set(self, variable: str, key: str) -> None:
        self._keys[variable] = key.strip()

    def get(self, variable: str | None) -> str | None:
        return self._keys.get(variable) if variable else None

    def values(self) -> tuple[str, ...]:
        return tuple(self._keys.values())


def key_missing_line(provider: ProviderConfig) -> str:
    """What the app says before anything is sent: the variable to set, never a key."""
    return f"key missing: set ${shown_env_name(provider.api_key_env or '')}"


def session_or_environment_key(
    provider: ProviderConfig, session: SessionKeys, environ: Mapping[str, str] | None = None
) -> str | None:
    """The provider's key from its variable or the file, else one given in the app; raises
    MissingApiKey when it names a variable and neither has a key."""
    key = resolve_api_key(provider, environ) or session.get(provider.api_key_env)
    if key is None and provider.api_key_env:
        raise MissingApiKey(missing_key_message(provider))
    return key


def config_secrets(config: Config, environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Every secret of every provider and MCP server the config knows, keys from the
    environment included: what a crash report, which may quote anything, is scrubbed of."""
    return unique(
        [
            *(
                secret
                for provider in config.providers.values()
                for secret in provider_secrets(provider, resolve_api_key(provider, environ))
            ),
            *(secret for server in config.mcp.values() for secret in mcp_secrets(server)),
        ]
    )
