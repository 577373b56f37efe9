"""Shared fixtures. Each piece keeps its fixtures next to its fakes and imports them here."""

import pytest

from app.settings.catalogue import CATALOGUE
from tests.fakes.fixtures import fake_provider, fakes

# A key or base URL exported in the developer's shell would make the built-in catalogue pick a
# real provider as the default: every test starts without them (a test sets what it needs).
_PROVIDER_VARIABLES = sorted(
    {e.key_env for e in CATALOGUE if e.key_env}
    | {e.base_url_env for e in CATALOGUE if e.base_url_env}
)


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _PROVIDER_VARIABLES:
        monkeypatch.delenv(name, raising=False)


__all__ = ["fake_provider", "fakes"]
