"""The providers Triptych knows without a config file: where each lives and what it needs.

Most users already export OPENAI_API_KEY or ANTHROPIC_API_KEY for other tools, so a provider
whose key variable is set is usable at once; the config only changes what differs (it wins field
by field, see app/settings/config.py). Plain data, read by the config loader on every start: no
I/O here. `triptych providers --catalogue` prints it as TOML to copy and edit.

Local servers (Ollama, LM Studio, llama.cpp, vLLM) are entries too, with no key: they are only
offered once a probe of their loopback port answers (app/providers/local.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.wire.api import Api

# How a provider's stream ends. The default trusts only the format's terminal event ([DONE],
# message_stop, response.completed): the seed providers' documents say a stream without it did
# not finish. Some servers never send [DONE] (Cerebras and Writer, in recordings months apart);
# for them a Chat stream whose body ended cleanly after every choice's finish_reason is complete.
TERMINAL_EVENT = "terminal_event"
FINISH_REASON = "finish_reason"
STREAM_ENDS = (TERMINAL_EVENT, FINISH_REASON)
LOCAL_HOST = "127.0.0.1"


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    name: str
    api: Api
    base_url: str
    model: str
    key_env: str | None = None  # None: a local server that needs no key
    models: tuple[str, ...] = ()
    max_tokens: int | None = None  # Messages requires one; None: the config's default
    include_usage: bool = True
    stream_end: str = TERMINAL_EVENT
    # The variable the provider's own SDK reads its base URL from (OPENAI_BASE_URL,
    # ANTHROPIC_BASE_URL): honoured so a proxy or a gateway set up for the SDK works here too.
    base_url_env: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    port: int | None = None  # a local server's loopback port

    @property
    def local(self) -> bool:
        return self.port is not None


def _local(name: str, port: int, model: str) -> CatalogueEntry:
    return CatalogueEntry(
        name, Api.CHAT, f"http://{LOCAL_HOST}:{port}/v1", model, key_env=None, port=port
    )


_OPENAI = "https://api.openai.com/v1"
_ANTHROPIC = "https://api.anthropic.com/v1"
_KENARI = "https://kenari.id/v1"
_ANTARA = "https://api.antarah.dev/v1"

# In this order: the first whose key is set is the default when the config names none.
CATALOGUE: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        "openai", Api.CHAT, _OPENAI, "gpt-5-mini", "OPENAI_API_KEY", base_url_env="OPENAI_BASE_URL"
    ),
    CatalogueEntry(
        "openai-responses",
        Api.RESPONSES,
        _OPENAI,
        "gpt-5-mini",
        "OPENAI_API_KEY",
        base_url_env="OPENAI_BASE_URL",
    ),
    CatalogueEntry(
        "anthropic",
        Api.MESSAGES,
        _ANTHROPIC,
        "claude-sonnet-4-5",
        "ANTHROPIC_API_KEY",
        max_tokens=8192,
        base_url_env="ANTHROPIC_BASE_URL",
    ),
    CatalogueEntry(
        "openrouter",
        Api.CHAT,
        "https://openrouter.ai/api/v1",
        "openrouter/auto",
        "OPENROUTER_API_KEY",
        headers={"X-Title": "Triptych"},  # names the app on openrouter.ai; optional
    ),
    # Gemini's OpenAI-compatible endpoint (…/v1beta/openai/chat/completions).
    CatalogueEntry(
        "gemini",
        Api.CHAT,
        "https://generativelanguage.googleapis.com/v1beta/openai",
        "gemini-2.5-flash",
        "GEMINI_API_KEY",
    ),
    CatalogueEntry(
        "groq", Api.CHAT, "https://api.groq.com/openai/v1", "openai/gpt-oss-120b", "GROQ_API_KEY"
    ),
    CatalogueEntry(
        "deepseek", Api.CHAT, "https://api.deepseek.com/v1", "deepseek-chat", "DEEPSEEK_API_KEY"
    ),
    CatalogueEntry(
        "mistral", Api.CHAT, "https://api.mistral.ai/v1", "mistral-medium-latest", "MISTRAL_API_KEY"
    ),
    CatalogueEntry("xai", Api.CHAT, "https://api.x.ai/v1", "grok-4", "XAI_API_KEY"),
    # Kimi (Moonshot AI): "until data: [DONE] arrives, the message should be considered
    # incomplete" (its streaming document), so the terminal event stays required.
    CatalogueEntry(
        "kimi",
        Api.CHAT,
        "https://api.moonshot.ai/v1",
        "kimi-k3",
        "MOONSHOT_API_KEY",
        models=("kimi-k3", "kimi-k2.6"),
    ),
    CatalogueEntry(
        "cerebras",
        Api.CHAT,
        "https://api.cerebras.ai/v1",
        "gpt-oss-120b",
        "CEREBRAS_API_KEY",
        stream_end=FINISH_REASON,
    ),
    CatalogueEntry(
        "together",
        Api.CHAT,
        "https://api.together.xyz/v1",
        "meta-llama/Llama-3.3-70B-Instruct-Turbo",
        "TOGETHER_API_KEY",
    ),
    CatalogueEntry(
        "fireworks",
        Api.CHAT,
        "https://api.fireworks.ai/inference/v1",
        "accounts/fireworks/models/gpt-oss-120b",
        "FIREWORKS_API_KEY",
    ),
    CatalogueEntry(
        "writer",
        Api.CHAT,
        "https://api.writer.com/v1",
        "palmyra-x5",
        "WRITER_API_KEY",
        stream_end=FINISH_REASON,
    ),
    # The seed providers, in each format they serve; both require the terminal event.
    CatalogueEntry("kenari", Api.CHAT, _KENARI, "step-3-7-flash:free", "KENARI_API_KEY"),
    CatalogueEntry(
        "kenari-messages",
        Api.MESSAGES,
        _KENARI,
        "step-3-7-flash:free",
        "KENARI_API_KEY",
        max_tokens=4096,
    ),
    CatalogueEntry(
        "kenari-responses", Api.RESPONSES, _KENARI, "step-3-7-flash:free", "KENARI_API_KEY"
    ),
    CatalogueEntry("antara", Api.CHAT, _ANTARA, "a1", "ANTARA_API_KEY"),
    CatalogueEntry(
        "antara-messages", Api.MESSAGES, _ANTARA, "a1", "ANTARA_API_KEY", max_tokens=4096
    ),
    CatalogueEntry("antara-responses", Api.RESPONSES, _ANTARA, "a1", "ANTARA_API_KEY"),
    # Local OpenAI-compatible servers: offered once their port answers GET /v1/models.
    _local("ollama", 11434, "llama3.2"),
    _local("lmstudio", 1234, "local-model"),
    _local("llamacpp", 8080, "local-model"),
    _local("vllm", 8000, "local-model"),
)

BY_NAME: dict[str, CatalogueEntry] = {entry.name: entry for entry in CATALOGUE}
LOCAL_SERVERS: tuple[CatalogueEntry, ...] = tuple(e for e in CATALOGUE if e.local)
KEY_VARIABLES: tuple[str, ...] = tuple(
    dict.fromkeys(e.key_env for e in CATALOGUE if e.key_env is not None)
)


def anthropic_base(url: str) -> str:
    """ANTHROPIC_BASE_URL as the Anthropic SDK reads it: the host, to which it adds
    /v1/messages; Triptych adds only /messages, so /v1 goes on unless it is there already."""
    bare = url.strip().rstrip("/")
    return bare if bare.endswith("/v1") else bare + "/v1"


def catalogue_toml() -> str:
    """The catalogue as a config file's [providers] tables: valid TOML that loads as is, for
    a user to copy and edit (a table in the config wins over the built-in entry, field by field)."""
    import tomli_w  # only for this command

    tables: dict[str, dict[str, Any]] = {}
    for entry in CATALOGUE:
        table: dict[str, Any] = {"api": entry.api.value, "base_url": entry.base_url}
        if entry.key_env is not None:
            table["api_key_env"] = entry.key_env
        table["model"] = entry.model
        if entry.models:
            table["models"] = list(entry.models)
        if entry.max_tokens is not None:
            table["max_tokens"] = entry.max_tokens
        if not entry.include_usage:
            table["include_usage"] = False
        if entry.stream_end != TERMINAL_EVENT:
            table["stream_end"] = entry.stream_end
        if entry.headers:
            table["headers"] = dict(entry.headers)
        if entry.params:
            table["params"] = dict(entry.params)
        tables[entry.name] = table
    header = (
        "# Triptych's built-in providers, as config tables. Copy the ones you change into your\n"
        "# config.toml (`triptych config` prints where it is): a table there wins over the\n"
        "# built-in one field by field, so keeping only the lines you change is enough.\n"
        "# OPENAI_BASE_URL and ANTHROPIC_BASE_URL, when set, replace those providers' base_url.\n"
        "# The local servers (no api_key_env) are offered when their port answers.\n\n"
    )
    return header + tomli_w.dumps({"providers": tables})


__all__ = [
    "BY_NAME",
    "CATALOGUE",
    "FINISH_REASON",
    "KEY_VARIABLES",
    "LOCAL_SERVERS",
    "STREAM_ENDS",
    "TERMINAL_EVENT",
    "CatalogueEntry",
    "anthropic_base",
    "catalogue_toml",
]
