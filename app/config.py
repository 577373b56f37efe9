"""The user's configuration: TOML read with tomllib, validated into dataclasses.

(Schema only so far; loading, validation and messages come with the configuration work.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.wire.engine import Api

DEMO = "demo"


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    name: str
    api: Api
    base_url: str  # the endpoint is appended: /chat/completions, /messages, /responses
    model: str
    api_key_env: str | None = None
    api_key: str | None = None  # discouraged: warn when the file is world-readable
    models: tuple[str, ...] = ()
    headers: dict[str, str] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)  # merged into every request body
    max_tokens: int = 4096  # Messages requires it
    price_in: float | None = None  # per million tokens
    price_out: float | None = None
    price_cached: float | None = None


@dataclass(frozen=True, slots=True)
class Config:
    path: Path | None  # the file read, None when there was none
    default: str = DEMO
    providers: dict[str, ProviderConfig] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
