"""Servers on this machine: Ollama, LM Studio, llama.cpp and vLLM, found by asking their usual
loopback port for `GET /v1/models`.

A probe is a short connection to 127.0.0.1 (nothing leaves the machine) with a short timeout:
a closed port answers at once, so with nothing running it costs about a millisecond. The app
probes only after its first frame, on a thread, so neither the first screen nor a prompt waits
for it; `triptych providers` probes before listing, and `ask --provider ollama` probes that one.
Whatever a server lists is untrusted: only valid model ids are kept.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from app.settings.catalogue import LOCAL_HOST, LOCAL_SERVERS, CatalogueEntry
from app.settings.config import Config, ProviderConfig, catalogue_provider
from app.settings.state import valid_model_id

PROBE_TIMEOUT = 0.5  # seconds per server: a local server that is up answers in milliseconds
MAX_LIST_BYTES = 1024 * 1024
MAX_MODELS = 500


def probe_now(
    entries: Iterable[CatalogueEntry] = LOCAL_SERVERS, timeout: float = PROBE_TIMEOUT
) -> list[ProviderConfig]:
    """The local servers that answer, each as a provider listing its models, in catalogue
    order; one that is down, slow or says something else is simply not there. All at once,
    each on its own thread: the whole probe takes at most `timeout`. The stdlib's http.client
    (not httpx) keeps the app's HTTP client out of the process until the first prompt."""
    wanted = list(entries)
    if not wanted:
        return []
    with ThreadPoolExecutor(max_workers=len(wanted), thread_name_prefix="local-probe") as pool:
        found = list(pool.map(lambda entry: _one(entry, timeout), wanted))
    return [provider for provider in found if provider is not None]


def _one(entry: CatalogueEntry, timeout: float) -> ProviderConfig | None:
    provider = catalogue_provider(entry, {})
    connection = http.client.HTTPConnection(LOCAL_HOST, entry.port, timeout=timeout)
    try:
        connection.request("GET", "/v1/models", headers={"Accept": "application/json"})
        response = connection.getresponse()
        if response.status != 200:
            return None
        body = response.read(MAX_LIST_BYTES + 1)
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()
    if len(body) > MAX_LIST_BYTES:
        return None
    models = _model_ids(body)
    if models is None:
        return None
    model = provider.model if provider.model in models or not models else models[0]
    return replace(provider, model=model, models=models)


def _model_ids(body: bytes) -> tuple[str, ...] | None:
    """The ids of an OpenAI-shaped model list; None when it is not one (another program on
    the port)."""
    try:
        document = json.loads(body.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(document, dict) or not isinstance(document.get("data"), list):
        return None
    ids = (item.get("id") for item in document["data"] if isinstance(item, dict))
    kept = [i for i in ids if isinstance(i, str) and valid_model_id(i)]
    return tuple(dict.fromkeys(kept))[:MAX_MODELS]


def with_local(config: Config, found: Iterable[ProviderConfig], config_file: Path | None) -> Config:
    """The config plus the servers found that it does not define itself (the file wins)."""
    added = {p.name: replace(p, config_file=config_file) for p in found}
    providers = dict(config.providers)
    for name, provider in added.items():
        if name not in providers or providers[name].origin == provider.origin:
            providers[name] = provider
    return replace(config, providers=providers)


def not_running(entry: CatalogueEntry) -> str:
    return (
        f"provider {entry.name!r} is a local server, but nothing answers GET /v1/models on "
        f"{entry.base_url.removesuffix('/v1')}: start it (or define [providers.{entry.name}] "
        "with its base_url)"
    )


__all__ = ["PROBE_TIMEOUT", "not_running", "probe_now", "with_local"]
