"""`triptych providers`: what is usable, where each provider came from, whether its key is set.

It shows where a key would come from and whether it is there, never the key itself, and the
base URL without any user:password or query string (some people put keys in those too).
`--json` prints the same as a list of objects for scripts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from app.settings.config import BUILTIN, CONFIG, DEMO, LOCAL, Config, ProviderConfig, key_is_set
from app.settings.redaction import shown_env_name

COLUMNS = ("provider", "api", "model", "key", "from", "base url")
ENV = "env"


def key_status(provider: ProviderConfig, environ: Mapping[str, str]) -> str:
    if provider.origin == LOCAL or (provider.source is None and provider.name.startswith(DEMO)):
        return "not needed"  # a local server; the built-in demos: demo, demo-messages, …
    if provider.api_key_env:
        is_set = bool(environ.get(provider.api_key_env, "").strip())
        name = provider.api_key_env
        if shown_env_name(name) != name:  # a key pasted there: never printed
            return (
                "set (api_key_env looks like a key)" if is_set else "MISSING: api_key_env is a key?"
            )
        if is_set:
            return f"set (${name})"
        if provider.api_key:
            return f"in file (${name} unset)"
        return f"MISSING: set ${name}"
    return "in file" if provider.api_key else "none (keyless)"


def source_of(provider: ProviderConfig, environ: Mapping[str, str]) -> tuple[str, str]:
    """Where the provider came from: (`config`|`env`|`local`|`builtin`, the words shown).
    A built-in provider whose key variable is set was found in the environment."""
    if provider.origin == LOCAL:
        port = urlsplit(provider.base_url).port
        return LOCAL, f"local :{port}" if port else LOCAL
    if provider.origin == BUILTIN:
        if provider.api_key_env and key_is_set(provider, environ):
            return ENV, f"env {provider.api_key_env}"
        return BUILTIN, "built in"
    return CONFIG, CONFIG


def provider_json(
    provider: ProviderConfig, environ: Mapping[str, str], default: bool
) -> dict[str, Any]:
    kind, _ = source_of(provider, environ)
    key_env = provider.api_key_env
    return {
        "name": provider.name,
        "api": provider.api.value,
        "base_url": safe_url(provider.base_url) if provider.base_url else None,
        "model": provider.model,
        "models": list(provider.models),
        "source": kind,
        "key_set": None if provider.origin == LOCAL else key_is_set(provider, environ),
        "key_env": key_env if key_env is None or shown_env_name(key_env) == key_env else None,
        "stream_end": provider.stream_end,
        "default": default,
    }


def format_providers_json(config: Config, environ: Mapping[str, str] | None = None) -> str:
    """One JSON list, a provider an object, in the order the text table lists them."""
    env = os.environ if environ is None else environ
    rows = [
        provider_json(provider, env, name == config.default)
        for name, provider in config.providers.items()
    ]
    return json.dumps(rows, indent=2) + "\n"


def safe_url(url: str) -> str:
    if not url:
        return "(built in, local)"
    parts = urlsplit(url)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host  # IPv6
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def format_providers(config: Config, environ: Mapping[str, str] | None = None) -> str:
    """A plain-text table, one provider a row; the default is marked with `*`."""
    env = os.environ if environ is None else environ
    rows = [COLUMNS]
    for name, provider in config.providers.items():
        marker = "*" if name == config.default else " "
        rows.append(
            (
                f"{marker} {name}",
                provider.api.value,
                provider.model,
                key_status(provider, env),
                source_of(provider, env)[1],
                safe_url(provider.base_url),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    header = ("  " + rows[0][0], *rows[0][1:])
    lines = [header, *rows[1:]]
    widths[0] = max(widths[0], len(header[0]))
    body = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in lines
    ]
    source = f"config: {config.path}" if config.path else "config: none (built-in providers only)"
    return "\n".join([*body, "", source, "* = default provider"]) + "\n"
