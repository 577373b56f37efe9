"""Which providers a comparison asks: `--compare A,B[,C[,D]]`, each `NAME` or `NAME:MODEL`.

`NAME:MODEL` compares two models of one provider without a second config entry. A name that
itself contains a colon still works: the whole item is tried as a provider name first.
"""

from __future__ import annotations

from dataclasses import replace

from app.settings.config import Config, ProviderConfig

MIN_PANES = 2
MAX_PANES = 4


class CompareSpecError(ValueError):
    """A `--compare` value with too few or too many providers; a usage error (exit 2)."""


def parse_compare(value: str, config: Config) -> list[ProviderConfig]:
    """The providers to compare, in pane order; unknown names raise ConfigError."""
    items = [item.strip() for item in value.split(",") if item.strip()]
    if not MIN_PANES <= len(items) <= MAX_PANES:
        raise CompareSpecError(
            f"--compare takes {MIN_PANES} to {MAX_PANES} comma-separated providers "
            f"(NAME or NAME:MODEL), not {len(items)}: {value!r}"
        )
    return [compare_provider(item, config) for item in items]


def compare_provider(item: str, config: Config) -> ProviderConfig:
    """`NAME` or `NAME:MODEL` as a provider (with that model)."""
    if item in config.providers:
        return config.providers[item]
    name, colon, model = item.partition(":")
    provider = config.provider(name.strip())  # ConfigError names the known providers
    model = model.strip()
    if colon and not model:
        raise CompareSpecError(f"--compare: {item!r} names no model after the colon")
    return replace(provider, model=model) if model else provider


def pane_labels(providers: list[ProviderConfig]) -> list[str]:
    """Short names for the ranking line: the provider name, with the model when two panes
    share a provider, and the pane number when even that is the same."""
    names = [p.name for p in providers]
    labels = [f"{p.name}:{p.model}" if names.count(p.name) > 1 else p.name for p in providers]
    return [
        f"{label} #{number}" if labels.count(label) > 1 else label
        for number, label in enumerate(labels, 1)
    ]


__all__ = [
    "MAX_PANES",
    "MIN_PANES",
    "CompareSpecError",
    "compare_provider",
    "pane_labels",
    "parse_compare",
]
