"""The demo providers, apart from the server: the CLI adds them to every config and the chat
screen's welcome card asks `is_demo` at start-up, while the server (http.server, the samples,
the frames) is only loaded when a demo answer is first asked for."""

from __future__ import annotations

from dataclasses import replace

from app.settings.config import BUILTIN, DEMO, Config, ProviderConfig
from app.wire.api import Api

DEMO_APIS = {DEMO: Api.CHAT, "demo-messages": Api.MESSAGES, "demo-responses": Api.RESPONSES}
DEMO_MODEL = "demo"


def is_demo(name: str) -> bool:
    return name in DEMO_APIS


def with_demo_providers(config: Config) -> Config:
    """The config plus `demo-messages` and `demo-responses` (unless the user took the names).

    Their base_url stays empty like the built-in `demo`'s: whoever streams first starts the
    server and fills it in (`DemoServer.attach`, or the UI's client maker).
    """
    providers = dict(config.providers)
    for name, api in DEMO_APIS.items():
        providers.setdefault(
            name,
            ProviderConfig(name=name, api=api, base_url="", model=DEMO_MODEL, origin=BUILTIN),
        )
    return replace(config, providers=providers)


__all__ = ["DEMO_APIS", "DEMO_MODEL", "is_demo", "with_demo_providers"]
