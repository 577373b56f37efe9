"""`triptych providers`: what is configured and whether each key is available.

It shows where a key would come from and whether it is there, never the key itself, and the
base URL without any user:password or query string (some people put keys in those too).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

from app.settings.config import DEMO, Config, ProviderConfig
from app.settings.redaction import shown_env_name

COLUMNS = ("provider", "api", "model", "key", "base url")


def key_status(provider: ProviderConfig, environ: Mapping[str, str]) -> str:
    if provider.source is None and provider.name.startswith(DEMO):
        return "not needed"  # the built-in demos: demo, demo-messages, demo-responses
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
    source = f"config: {config.path}" if config.path else "config: none (built-in demo only)"
    return "\n".join([*body, "", source, "* = default provider"]) + "\n"
