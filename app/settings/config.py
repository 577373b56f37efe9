"""The user's configuration: TOML read with tomllib, validated into dataclasses.

The user's file is only read, never rewritten (what the app remembers goes to state.toml, see
state.py), so their comments survive. Any problem with it becomes one ConfigError naming the
file, the line and the key, which the CLI prints before exiting with status 2 — never a traceback.
No message, warning or repr ever contains an API key.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import stat
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from app.settings.catalogue import (
    BY_NAME,
    CATALOGUE,
    STREAM_ENDS,
    TERMINAL_EVENT,
    CatalogueEntry,
    anthropic_base,
)
from app.settings.paths import locate_config
from app.settings.redaction import looks_like_key
from app.settings.toml_lines import KeyLines, Keys, dotted
from app.wire.api import Api

DEMO = "demo"
EXIT_CONFIG_ERROR = 2
DEFAULT_MAX_TOKENS = 4096
DEFAULT_IDLE_TIMEOUT = 150.0
DEFAULT_KEEP_STREAM_MIB = 8.0  # of each answer's raw stream kept in the history
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_TOOL_ROUNDS = 10  # model requests per prompt while tools are being answered
DEFAULT_TOOL_TIMEOUT = 60.0  # seconds an MCP server may take to start or answer one call
MAX_SCHEMA_BYTES = 1024 * 1024  # a `parameters = "file.json"` schema
MAX_CONFIG_BYTES = 1024 * 1024  # far above any real config; bounds what a wrong path costs
API_NAMES = tuple(api.value for api in Api)
ENDPOINTS = {Api.CHAT: "/chat/completions", Api.MESSAGES: "/messages", Api.RESPONSES: "/responses"}


class ConfigError(Exception):
    """A configuration problem the user must fix; str() is the complete message to print."""

    def __init__(self, problems: list[str] | tuple[str, ...] | str) -> None:
        self.problems = (problems,) if isinstance(problems, str) else tuple(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True, slots=True)
class AttachmentLimits:
    """What one request may attach, checked before sending: `[providers.NAME.attachments]`.
    Sizes are of the files themselves (base64 makes the request a third larger)."""

    max_files: int
    max_file_mb: float  # each file
    max_total_mb: float  # all files of one prompt together


# Defaults that match the big providers: Anthropic's Messages takes images of up to 5 MB and
# requests of up to 32 MB; OpenAI takes files of up to 20 MB (images) in a 50 MB request.
DEFAULT_ATTACHMENT_LIMITS = {
    Api.CHAT: AttachmentLimits(max_files=20, max_file_mb=20, max_total_mb=50),
    Api.MESSAGES: AttachmentLimits(max_files=20, max_file_mb=5, max_total_mb=32),
    Api.RESPONSES: AttachmentLimits(max_files=20, max_file_mb=20, max_total_mb=50),
}
_LIMIT_KEYS = {f.name for f in fields(AttachmentLimits)}


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    name: str
    api: Api
    base_url: str  # the endpoint is appended: /chat/completions, /messages, /responses
    model: str
    api_key_env: str | None = None
    api_key: str | None = field(default=None, repr=False)  # discouraged: warn if world-readable
    models: tuple[str, ...] = ()
    headers: dict[str, str] = field(default_factory=dict, repr=False)  # may carry credentials
    params: dict[str, Any] = field(default_factory=dict)  # merged into every request body
    max_tokens: int = DEFAULT_MAX_TOKENS  # Messages requires it
    max_concurrency: int | None = None  # `triptych batch`: requests in flight; None: --concurrency
    price_in: float | None = None  # per million tokens
    price_out: float | None = None
    price_cached: float | None = None
    context_window: int | None = None  # tokens; None: the [prices] extra's figure, if any
    # Chat Completions: ask for the usage chunk (`stream_options.include_usage`); OpenAI and
    # Antara send no usage without it. False for a server that rejects the field.
    include_usage: bool = True
    attachments: AttachmentLimits | None = None  # None: DEFAULT_ATTACHMENT_LIMITS for its api
    # "terminal_event": a stream is complete only at its format's last event ([DONE], …);
    # "finish_reason": a Chat stream that ended cleanly after its finish_reason is complete too.
    stream_end: str = TERMINAL_EVENT
    source: Path | None = None  # the file that defined it, for messages; None when built in
    # Where it came from: "config" (a table in the file, or flags), "builtin" (the catalogue,
    # app/settings/catalogue.py) or "local" (a server found on this machine's loopback).
    origin: str = "config"
    config_file: Path | None = None  # the config a setting for it goes in (read or to create)

    @property
    def attachment_limits(self) -> AttachmentLimits:
        if self.attachments is not None:
            return self.attachments
        return DEFAULT_ATTACHMENT_LIMITS[self.api]

    @property
    def endpoint_url(self) -> str:
        return self.base_url + ENDPOINTS[self.api]

    @property
    def model_choices(self) -> tuple[str, ...]:
        """What the model picker offers: the configured model first, then `models`."""
        return (self.model, *(m for m in self.models if m != self.model))


def demo_provider(base_url: str = "") -> ProviderConfig:
    """The built-in offline provider; the demo server fills in base_url once it listens."""
    return ProviderConfig(name=DEMO, api=Api.CHAT, base_url=base_url, model=DEMO, origin=BUILTIN)


BUILTIN = "builtin"
LOCAL = "local"
CONFIG = "config"


def catalogue_provider(entry: CatalogueEntry, environ: Mapping[str, str]) -> ProviderConfig:
    """A catalogue entry as a provider; its SDK's base URL variable honoured when set."""
    base_url = entry.base_url
    from_env = environ.get(entry.base_url_env, "").strip() if entry.base_url_env else ""
    if from_env:
        base_url = anthropic_base(from_env) if entry.api is Api.MESSAGES else from_env.rstrip("/")
        problem = base_url_problem(base_url)
        if problem is not None:  # the URL is never quoted: some put a key in it
            raise ConfigError(f"${entry.base_url_env} (for provider {entry.name!r}): {problem}")
    return ProviderConfig(
        name=entry.name,
        api=entry.api,
        base_url=base_url,
        model=entry.model,
        api_key_env=entry.key_env,
        models=entry.models,
        headers=dict(entry.headers),
        params=dict(entry.params),
        max_tokens=entry.max_tokens or DEFAULT_MAX_TOKENS,
        include_usage=entry.include_usage,
        stream_end=entry.stream_end,
        origin=LOCAL if entry.local else BUILTIN,
    )


def key_is_set(provider: ProviderConfig, environ: Mapping[str, str]) -> bool | None:
    """Whether the provider's key is there (its variable, or `api_key` in the file); None when
    it needs none (the demo, a local server, a provider with neither)."""
    if provider.api_key_env and environ.get(provider.api_key_env, "").strip():
        return True
    if provider.api_key:
        return True
    return False if provider.api_key_env else None


EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


@dataclass(frozen=True, slots=True)
class ToolConfig:
    """A `[tools.NAME]` tool: offered to the model, answered by hand (no server runs it)."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=lambda: dict(EMPTY_SCHEMA))


@dataclass(frozen=True, slots=True)
class McpServerConfig:
    """An `[mcp.NAME]` server: `command` (stdio) or `url` (streamable HTTP), never both."""

    name: str
    command: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict, repr=False)  # may carry credentials
    cwd: Path | None = None
    url: str | None = field(default=None, repr=False)  # may carry a ?key=
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    timeout: float | None = None  # overrides the config's tool_timeout for this server


DEFAULT_READING_WIDTH = 100  # lines of prose longer than this are hard to read
MIN_READING_WIDTH = 20


@dataclass(frozen=True, slots=True)
class UiSettings:
    theme: str | None = None
    reasoning_open: bool = False  # keep reasoning panes open instead of collapsed
    reading_width: int = DEFAULT_READING_WIDTH  # columns a chat's text is laid out in; 0: all


@dataclass(frozen=True, slots=True)
class SystemPreset:
    """A named system prompt from `[prompts.NAME]`, chosen with `--system-preset NAME`."""

    name: str
    system: str


@dataclass(frozen=True, slots=True)
class Config:
    path: Path | None  # the file read, None when there was none
    default: str = DEMO
    # False when the file names no `default`: then it was worked out (merge_catalogue), and the
    # provider used last wins over it.
    default_named: bool = True
    providers: dict[str, ProviderConfig] = field(default_factory=lambda: {DEMO: demo_provider()})
    warnings: tuple[str, ...] = ()
    system: str | None = None  # default system prompt
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT  # seconds without a byte before a stream is dead
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    # MiB of each answer's raw stream kept (the inspector's frames, stored with the answer);
    # past it the rest is counted, not kept, and the answer says it was cut. 0: keep none.
    keep_stream_mib: float = DEFAULT_KEEP_STREAM_MIB
    ui: UiSettings = field(default_factory=UiSettings)
    prompts: dict[str, SystemPreset] = field(default_factory=dict)  # [prompts.NAME], file order
    tools: dict[str, ToolConfig] = field(default_factory=dict)
    mcp: dict[str, McpServerConfig] = field(default_factory=dict)
    tool_rounds: int = DEFAULT_TOOL_ROUNDS  # the most model requests one prompt may take
    tool_timeout: float = DEFAULT_TOOL_TIMEOUT

    @property
    def keep_stream_bytes(self) -> int:
        return int(self.keep_stream_mib * 1024 * 1024)

    def preset(self, name: str) -> SystemPreset:
        """The named system prompt; an unknown name is a ConfigError listing the known ones."""
        if name not in self.prompts:
            known = ", ".join(self.prompts) or 'none (add [prompts.NAME] system = "...")'
            hint = did_you_mean(name, self.prompts)
            raise ConfigError(f"unknown system preset {name!r}; configured: {known}{hint}")
        return self.prompts[name]

    def provider(self, name: str | None = None) -> ProviderConfig:
        """The named provider (the default when None); an unknown name is a ConfigError."""
        chosen = self.default if name is None else name
        if chosen not in self.providers:
            known = ", ".join(self.providers)
            hint = did_you_mean(chosen, self.providers)
            raise ConfigError(f"unknown provider {chosen!r}; configured: {known}{hint}")
        return self.providers[chosen]

    def with_provider(self, provider: ProviderConfig) -> Config:
        """A copy with one provider replaced, e.g. the demo once its server's URL is known."""
        return replace(self, providers={**self.providers, provider.name: provider})


def load_config(explicit: Path | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """Read and validate the config chosen by `--config`, `$TRIPTYCH_CONFIG` or the default dir.
    A missing file at the default location means demo only; anywhere else it is an error."""
    env = os.environ if environ is None else environ
    location = locate_config(explicit, environ)
    config = _read_config(location.path, location.explicit, location.chosen_by, env)
    return merge_catalogue(config, env, location.path)


def merge_catalogue(config: Config, environ: Mapping[str, str], config_file: Path) -> Config:
    """The config over the built-in catalogue: a name the file defines is the file's (its
    table already filled from the catalogue where it was silent); every other entry is added,
    those whose key is set first. Local servers are added only when a probe finds them. With no
    `default` in the file, the first catalogue provider whose key is set is the default."""
    found: dict[str, ProviderConfig] = {}
    missing: dict[str, ProviderConfig] = {}
    for entry in CATALOGUE:
        if entry.name in config.providers or entry.local:
            continue
        provider = replace(catalogue_provider(entry, environ), config_file=config_file)
        (found if key_is_set(provider, environ) else missing)[entry.name] = provider
    providers = {
        name: replace(provider, config_file=config_file)
        for name, provider in config.providers.items()
    }
    default = config.default
    if not config.default_named and found:
        default = next(iter(found))
    return replace(config, providers={**providers, **found, **missing}, default=default)


def _read_config(path: Path, explicit: bool, chosen_by: str, environ: Mapping[str, str]) -> Config:
    try:
        raw = _read_bounded(path)
    except FileNotFoundError:
        if explicit:
            raise ConfigError(f"{path}: config file not found (given by {chosen_by})") from None
        return Config(path=None, default_named=False)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config file: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")  # editors on Windows add a BOM
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_syntax_message(path, str(exc))) from None
    except RecursionError:  # tomllib recurses once per level of nested arrays or tables
        raise ConfigError(f"{path}: invalid TOML: arrays or tables nested too deeply") from None
    return _Validator(path, text, environ).config(document)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """ "; did you mean NAME?" when `word` is a near miss of one choice (a typo, another case),
    else "": a misspelt key is otherwise ignored and the user wonders why it has no effect."""
    by_lower = {choice.lower(): choice for choice in choices}
    found = difflib.get_close_matches(word.lower(), list(by_lower), n=1)
    return f"; did you mean {by_lower[found[0]]}?" if found else ""


def _read_bounded(path: Path, limit: int = MAX_CONFIG_BYTES, what: str = "config file") -> bytes:
    """The file's bytes, if it is a regular file of at most MAX_CONFIG_BYTES. Opened without
    blocking and checked by its descriptor, so a FIFO, /dev/zero or a file swapped in between
    is refused at once rather than hanging or filling memory."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    descriptor = os.open(path, flags)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise ConfigError(
                f"{path}: cannot read {what}: not a regular file ({_file_kind(mode)})"
            )
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(descriptor, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(descriptor)
    if size > limit:
        raise ConfigError(f"{path}: cannot read {what}: larger than {limit // 1024 // 1024} MiB")
    return b"".join(chunks)


def _file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def base_url_problem(url: str) -> str | None:
    """Why `url` cannot be a base URL, or None: checked when the config (or `--base-url`) is
    read, so a bad host or port is a message naming the key, not a crash at the first request.
    The URL itself is never quoted back: some people put a key in it."""
    if any(char.isspace() or not char.isprintable() for char in url):
        return "must not contain spaces or control characters"
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        if "IPv6" in str(exc):
            return "is not a valid URL: an IPv6 host needs both brackets, as in [::1]"
        return "is not a valid URL"
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return "must be an http:// or https:// URL"
    try:
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        if "IPv4 or IPv6" in str(exc):
            return "is not a valid URL: the host in [brackets] is not an IPv6 address"
        port, host = -1, "?"
    if port is not None and not 1 <= port <= 65535:
        written = parts.netloc.rpartition("@")[2].rpartition(":")[2][:20]
        return f"the port must be a number from 1 to 65535, not {written!r}"
    if not host:
        return "has no host name"
    import httpx  # here, not at import: most commands never build a URL

    try:
        httpx.URL(url)
    except httpx.InvalidURL:
        return "is not a valid URL"
    for endpoint in ENDPOINTS.values():
        if parts.path.rstrip("/").endswith(endpoint):
            return (
                f"ends with the endpoint {endpoint!r}; give only the base "
                "(e.g. https://kenari.id/v1) — the app appends the endpoint"
            )
    return None


def _mcp_url_problem(url: str) -> str | None:
    """Why an MCP server URL cannot be used (never quoting it: it may hold a key)."""
    if any(char.isspace() or not char.isprintable() for char in url):
        return "must not contain spaces or control characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        return "is not a valid URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http:// or https:// URL"
    return None


def _syntax_message(path: Path, detail: str) -> str:
    found = re.search(r"at line (\d+), column (\d+)", detail)
    where = f"{path}:{found.group(1)}" if found else str(path)
    return f"{where}: invalid TOML: {detail}"


_KINDS = {
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "an array",
    dict: "a table",
}


def _kind(value: object) -> str:
    return _KINDS.get(type(value), "a date/time")


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# The keys a user may write are the dataclass fields, less the ones the loader fills in.
_TOP_KEYS = {f.name for f in fields(Config)} - {"path", "warnings", "default_named"}
_UI_KEYS = {f.name for f in fields(UiSettings)}
_PRESET_KEYS = {f.name for f in fields(SystemPreset)} - {"name"}
_PROVIDER_KEYS = {f.name for f in fields(ProviderConfig)} - {
    "name",
    "source",
    "origin",
    "config_file",
}
_TOOL_KEYS = {"description", "parameters"}
_MCP_KEYS = {f.name for f in fields(McpServerConfig)} - {"name"}
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # what every provider accepts as a name
_SECRET_HEADERS = {"authorization", "x-api-key", "api-key", "proxy-authorization"}
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")  # RFC 9110 field-name


def _header_problem(name: str, value: object) -> str | None:
    """Why a header cannot be sent, or None; found when the file is read rather than when the
    request is built. The value is never quoted back: it may be a credential."""
    if not _TOKEN.match(name):
        return "not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)"
    if not isinstance(value, str):
        return f"must be a string, not {_kind(value)}"
    return _sendable_problem(value)


def _sendable_problem(value: str) -> str | None:
    """Why `value` cannot go into an HTTP header (httpx sends ASCII; CR/LF would split it)."""
    if not value.isascii():
        return "the value must be ASCII text"
    if any(char != "\t" and not char.isprintable() for char in value):
        return "the value must not contain control characters (such as CR or LF)"
    return None


class _Validator:
    """Walks the parsed document, collecting every error and warning with file:line: key."""

    def __init__(self, path: Path, text: str, environ: Mapping[str, str]) -> None:
        self.path = path
        self.environ = environ  # a catalogue entry's base URL variable (OPENAI_BASE_URL)
        self.lines = KeyLines(text)
        self.errors: list[tuple[int, str]] = []  # (line, message), reported in file order
        self.warnings: list[tuple[int, str]] = []

    def _located(self, keys: Keys, text: str) -> tuple[int, str]:
        line = self.lines.line_of(keys)
        where = f"{self.path}:{line}" if line else str(self.path)
        return line or 0, f"{where}: {dotted(keys)}: {text}"

    def error(self, keys: Keys, text: str) -> None:
        self.errors.append(self._located(keys, text))

    def warn(self, keys: Keys, text: str) -> None:
        self.warnings.append(self._located(keys, text))

    def unknown_keys(self, table: Mapping[str, Any], known: set[str], parent: Keys) -> None:
        for key in table:
            if key not in known:
                hint = did_you_mean(key, sorted(known))
                listed = f" (known: {', '.join(sorted(known))})"
                self.warn((*parent, key), f"unknown key, ignored{hint or listed}")

    def text(self, table: Mapping[str, Any], keys: Keys, *, required: str = "") -> str | None:
        """A non-empty string; `required` is the reason given when it is missing."""
        if keys[-1] not in table:
            if required:
                self.error(keys, f"missing: {required}")
            return None
        value = table[keys[-1]]
        if not isinstance(value, str) or not value.strip():
            shown = "an empty string" if isinstance(value, str) else _kind(value)
            self.error(keys, f"must be a non-empty string, not {shown}")
            return None
        return value

    def number(self, table: Mapping[str, Any], keys: Keys, *, positive: bool) -> float | None:
        if keys[-1] not in table:
            return None
        value = table[keys[-1]]
        if not _is_number(value):
            self.error(keys, f"must be a number, not {_kind(value)}")
        elif not math.isfinite(value):
            self.error(keys, f"must be a finite number, not {value}")
        elif value < 0 or (positive and value == 0):
            self.error(keys, "must be greater than 0" if positive else "must not be negative")
        else:
            return float(value)
        return None

    def reading_width(self, ui_table: Mapping[str, Any]) -> int:
        keys = ("ui", "reading_width")
        value = ui_table.get("reading_width", DEFAULT_READING_WIDTH)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            shown = value if isinstance(value, float) else _kind(value)
            self.error(keys, f"must be a whole number of columns, not {shown}")
        elif value != 0 and value < MIN_READING_WIDTH:
            self.error(keys, f"must be 0 (no cap) or {MIN_READING_WIDTH} and up, not {value}")
        else:
            return value
        return DEFAULT_READING_WIDTH

    def table(self, parent: Mapping[str, Any], keys: Keys) -> dict[str, Any]:
        value = parent.get(keys[-1], {})
        if isinstance(value, dict):
            return value
        self.error(keys, f"must be a table, not {_kind(value)}")
        return {}

    def config(self, document: dict[str, Any]) -> Config:
        self.unknown_keys(document, _TOP_KEYS, ())
        defined = self.table(document, ("providers",))
        providers = {DEMO: demo_provider()}
        for name, body in defined.items():
            provider = self.provider(name, body)
            if provider is not None:
                providers[name] = provider
        named = self.text(document, ("default",))
        default = named or DEMO
        if default != DEMO and default not in defined and default not in BY_NAME:
            names = [DEMO, *(n for n in defined if n != DEMO)]
            hint = did_you_mean(default, [*names, *BY_NAME])
            self.error(
                ("default",),
                f"no provider named {default!r}; configured: {', '.join(names)}{hint}",
            )
        ui_table = self.table(document, ("ui",))
        self.unknown_keys(ui_table, _UI_KEYS, ("ui",))
        reasoning_open = ui_table.get("reasoning_open", False)
        if not isinstance(reasoning_open, bool):
            self.error(
                ("ui", "reasoning_open"), f"must be true or false, not {_kind(reasoning_open)}"
            )
            reasoning_open = False
        ui = UiSettings(
            theme=self.text(ui_table, ("ui", "theme")),
            reasoning_open=reasoning_open,
            reading_width=self.reading_width(ui_table),
        )
        idle = self.number(document, ("idle_timeout",), positive=True)
        connect = self.number(document, ("connect_timeout",), positive=True)
        keep = self.number(document, ("keep_stream_mib",), positive=False)
        system = document.get("system")
        if system is not None and not isinstance(system, str):
            self.error(("system",), f"must be a string, not {_kind(system)}")
            system = None
        prompts = self.prompts(self.table(document, ("prompts",)))
        tools = {
            name: tool
            for name, body in self.table(document, ("tools",)).items()
            if (tool := self.tool(name, body)) is not None
        }
        servers = {
            name: server
            for name, body in self.table(document, ("mcp",)).items()
            if (server := self.mcp_server(name, body)) is not None
        }
        rounds = self.whole(document, ("tool_rounds",), DEFAULT_TOOL_ROUNDS)
        tool_timeout = self.number(document, ("tool_timeout",), positive=True)
        if self.errors:
            raise ConfigError([message for _, message in sorted(self.errors)])
        return Config(
            path=self.path,
            default=default,
            default_named=named is not None,
            providers=providers,
            warnings=tuple(message for _, message in sorted(self.warnings)),
            system=system,
            idle_timeout=DEFAULT_IDLE_TIMEOUT if idle is None else idle,
            connect_timeout=DEFAULT_CONNECT_TIMEOUT if connect is None else connect,
            keep_stream_mib=DEFAULT_KEEP_STREAM_MIB if keep is None else keep,
            ui=ui,
            prompts=prompts,
            tools=tools,
            mcp=servers,
            tool_rounds=rounds,
            tool_timeout=DEFAULT_TOOL_TIMEOUT if tool_timeout is None else tool_timeout,
        )

    def whole(self, table: Mapping[str, Any], keys: Keys, default: int) -> int:
        value = table.get(keys[-1], default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            shown = value if isinstance(value, int | float) else _kind(value)
            self.error(keys, f"must be a whole number from 1 up, not {shown}")
            return default
        return value

    def tool(self, name: str, body: object) -> ToolConfig | None:
        keys: Keys = ("tools", name)
        if not _TOOL_NAME.match(name):
            self.error(
                keys,
                "a tool's name is sent to the provider as is: use 1 to 64 letters, digits, "
                "_ or - (providers reject anything else)",
            )
            return None
        if not isinstance(body, dict):
            self.error(keys, f"must be a table ([tools.{name}]), not {_kind(body)}")
            return None
        self.unknown_keys(body, _TOOL_KEYS, keys)
        description = body.get("description", "")
        if not isinstance(description, str):
            self.error((*keys, "description"), f"must be a string, not {_kind(description)}")
            return None
        parameters = self.schema(body, (*keys, "parameters"))
        if parameters is None:
            return None
        return ToolConfig(name=name, description=description, parameters=parameters)

    def schema(self, body: Mapping[str, Any], keys: Keys) -> dict[str, Any] | None:
        """`parameters`: a JSON Schema written as a TOML table, or the path of a JSON file
        (relative to the config file); its top must be an object schema, as providers ask."""
        value = body.get(keys[-1], EMPTY_SCHEMA)
        if isinstance(value, str):
            value = self.schema_file(value, keys)
            if value is None:
                return None
        if not isinstance(value, dict):
            self.error(keys, f"must be a table (a JSON Schema) or a file path, not {_kind(value)}")
            return None
        if value.get("type") != "object":
            self.error(keys, 'the schema\'s top must say type = "object" (every provider asks)')
            return None
        return dict(value)

    def schema_file(self, written: str, keys: Keys) -> Any:
        path = Path(written).expanduser()
        if not path.is_absolute():
            path = self.path.parent / path
        try:
            raw = _read_bounded(path, MAX_SCHEMA_BYTES, "schema file")
            return json.loads(raw.decode("utf-8"))
        except ConfigError as exc:
            self.error(keys, str(exc))
        except OSError as exc:
            self.error(keys, f"cannot read {path}: {exc.strerror or exc}")
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            self.error(keys, f"{path} is not JSON: {exc}")
        return None

    def mcp_server(self, name: str, body: object) -> McpServerConfig | None:
        keys: Keys = ("mcp", name)
        if not _TOOL_NAME.match(name):
            self.error(keys, "a server's name prefixes its tools: use letters, digits, _ or -")
            return None
        if not isinstance(body, dict):
            self.error(keys, f"must be a table ([mcp.{name}]), not {_kind(body)}")
            return None
        errors_before = len(self.errors)
        self.unknown_keys(body, _MCP_KEYS, keys)
        command, url = body.get("command"), body.get("url")
        if (command is None) == (url is None):
            self.error(keys, "give command = [...] (a stdio server) or url (streamable HTTP)")
            return None
        server = McpServerConfig(
            name=name, timeout=self.number(body, (*keys, "timeout"), positive=True)
        )
        if command is not None:
            server = self.stdio_server(server, body, keys)
        else:
            server = self.http_server(server, body, keys)
        return server if len(self.errors) == errors_before else None

    def stdio_server(
        self, server: McpServerConfig, body: Mapping[str, Any], keys: Keys
    ) -> McpServerConfig:
        command = body["command"]
        if (
            not isinstance(command, list)
            or not command
            or not all(isinstance(part, str) for part in command)
            or not command[0].strip()
        ):
            self.error((*keys, "command"), "must be a non-empty array of strings, program first")
            command = []
        for misplaced in ("headers",):
            if misplaced in body:
                self.error((*keys, misplaced), "is for a url server; a command server takes env")
        env: dict[str, str] = {}
        for var, value in self.table(body, (*keys, "env")).items():
            if not _ENV_NAME.match(var) or not isinstance(value, str):
                self.error((*keys, "env", var), 'must be NAME = "string"')
            else:
                env[var] = value
        cwd = None
        written = self.text(body, (*keys, "cwd"))
        if written is not None:
            cwd = Path(written).expanduser()
            if not cwd.is_absolute():
                cwd = self.path.parent / cwd
        return replace(server, command=tuple(command), env=env, cwd=cwd)

    def http_server(
        self, server: McpServerConfig, body: Mapping[str, Any], keys: Keys
    ) -> McpServerConfig:
        for misplaced in ("env", "cwd"):
            if misplaced in body:
                self.error(
                    (*keys, misplaced), "is for a command server; a url server takes headers"
                )
        url = self.text(body, (*keys, "url"), required="the server's URL")
        if url is not None:
            problem = _mcp_url_problem(url)
            if problem is not None:
                self.error((*keys, "url"), problem)
        headers: dict[str, str] = {}
        for header, value in self.table(body, (*keys, "headers")).items():
            problem = _header_problem(header, value)
            if problem is None:
                headers[header] = value
            else:
                self.error((*keys, "headers", header), problem)
        return replace(server, url=url, headers=headers)

    def prompts(self, table: Mapping[str, Any]) -> dict[str, SystemPreset]:
        """`[prompts.NAME] system = "..."`: each a table with a non-empty `system` string."""
        presets: dict[str, SystemPreset] = {}
        for name, body in table.items():
            keys: Keys = ("prompts", name)
            if not isinstance(body, dict):
                self.error(keys, f"must be a table ([prompts.{name}]), not {_kind(body)}")
                continue
            self.unknown_keys(body, _PRESET_KEYS, keys)
            system = self.text(body, (*keys, "system"), required="the system prompt's text")
            if system is not None:
                presets[name] = SystemPreset(name=name, system=system)
        return presets

    def provider(self, name: str, body: object) -> ProviderConfig | None:
        """A `[providers.NAME]` table. For a catalogue name the built-in entry fills in every
        field the table leaves out (so `model = "…"` alone changes just the model)."""
        keys: Keys = ("providers", name)
        if name == DEMO:
            self.error(
                keys,
                "'demo' is the built-in offline provider and cannot be redefined; "
                "give your provider another name",
            )
            return None
        if not isinstance(body, dict):
            self.error(keys, f"must be a table ([providers.{name}]), not {_kind(body)}")
            return None
        entry = BY_NAME.get(name)
        base = None if entry is None else self.catalogue_base(entry, keys)
        errors_before = len(self.errors)
        self.unknown_keys(body, _PROVIDER_KEYS, keys)
        api = base.api if base is not None and "api" not in body else self.api(body, keys)
        base_url = (
            base.base_url
            if base is not None and "base_url" not in body
            else self.base_url(body, keys)
        )
        model = (
            base.model
            if base is not None and "model" not in body
            else self.text(body, (*keys, "model"), required="every provider needs a model")
        )
        secrets = self.secrets(body, keys)
        extras = self.extras(body, keys)
        if base is not None:  # what the table does not say, the catalogue does
            if "api_key_env" not in body and "api_key" not in body:
                secrets["api_key_env"] = base.api_key_env
            for field_name, value in (
                ("headers", base.headers),
                ("params", base.params),
                ("models", base.models),
                ("max_tokens", base.max_tokens),
                ("include_usage", base.include_usage),
                ("stream_end", base.stream_end),
            ):
                if field_name not in body:
                    target = secrets if field_name == "headers" else extras
                    target[field_name] = value
        if api is not None:
            extras["attachments"] = self.attachment_limits(body, keys, api)
        if len(self.errors) > errors_before or api is None or base_url is None or model is None:
            return None
        return ProviderConfig(
            name=name,
            api=api,
            base_url=base_url,
            model=model,
            source=self.path,
            **secrets,
            **extras,
        )

    def catalogue_base(self, entry: CatalogueEntry, keys: Keys) -> ProviderConfig:
        try:
            return catalogue_provider(entry, self.environ)
        except ConfigError as exc:
            self.error((*keys, "base_url"), str(exc))
            return catalogue_provider(entry, {})

    def api(self, body: Mapping[str, Any], keys: Keys) -> Api | None:
        valid = ", ".join(API_NAMES)
        value = self.text(body, (*keys, "api"), required=f"one of {valid}")
        if value is None:
            return None
        if value not in API_NAMES:
            hint = did_you_mean(value, API_NAMES)
            self.error((*keys, "api"), f"unknown api {value!r}; valid: {valid}{hint}")
            return None
        return Api(value)

    def base_url(self, body: Mapping[str, Any], keys: Keys) -> str | None:
        value = self.text(body, (*keys, "base_url"), required="the URL the endpoint is added to")
        if value is None:
            return None
        url = value.strip().rstrip("/")
        problem = base_url_problem(url)
        if problem is not None:
            self.error((*keys, "base_url"), problem)
            return None
        return url

    def secrets(self, body: Mapping[str, Any], keys: Keys) -> dict[str, Any]:
        env_name = self.text(body, (*keys, "api_key_env"))
        if env_name is not None and not _ENV_NAME.match(env_name):
            # Never echo it: a key pasted here by mistake would end up on screen.
            self.error(
                (*keys, "api_key_env"),
                "must be the NAME of an environment variable (letters, digits, _), "
                "not the key itself; put the key in that variable",
            )
            env_name = None
        elif env_name is not None and looks_like_key(env_name):
            self.warn(
                (*keys, "api_key_env"), "api_key_env should name a variable, not hold the key"
            )
        api_key = self.text(body, (*keys, "api_key"))
        problem = None if api_key is None else _sendable_problem(api_key)
        if problem is not None:
            self.error((*keys, "api_key"), problem)  # sent as a header; never echoed
            api_key = None
        headers: dict[str, str] = {}
        for header, value in self.table(body, (*keys, "headers")).items():
            problem = _header_problem(header, value)
            if problem is None:
                headers[header] = value
            else:
                self.error((*keys, "headers", header), problem)
        self.check_exposure(keys, api_key is not None, headers)
        return {"api_key_env": env_name, "api_key": api_key, "headers": headers}

    def check_exposure(self, keys: Keys, has_key: bool, headers: Mapping[str, str]) -> None:
        try:
            world_readable = bool(self.path.stat().st_mode & stat.S_IROTH)
        except OSError:
            return
        if not world_readable:
            return
        advice = f"the file is world-readable; run chmod 600 {self.path} or use api_key_env"
        if has_key:
            self.warn((*keys, "api_key"), f"a key is stored here and {advice}")
        for header in headers:
            if header.lower() in _SECRET_HEADERS:
                self.warn((*keys, "headers", header), f"a credential header and {advice}")

    def attachment_limits(
        self, body: Mapping[str, Any], keys: Keys, api: Api
    ) -> AttachmentLimits | None:
        """`[providers.NAME.attachments]`: any of max_files, max_file_mb, max_total_mb; the
        ones left out keep the api's default. None when the table is absent."""
        if "attachments" not in body:
            return None
        table_keys: Keys = (*keys, "attachments")
        table = self.table(body, table_keys)
        self.unknown_keys(table, _LIMIT_KEYS, table_keys)
        default = DEFAULT_ATTACHMENT_LIMITS[api]
        files = table.get("max_files", default.max_files)
        if isinstance(files, bool) or not isinstance(files, int) or files < 0:
            shown = f"{files}" if isinstance(files, int) else _kind(files)
            self.error((*table_keys, "max_files"), f"must be a whole number >= 0, not {shown}")
            files = default.max_files
        sizes = {
            name: self.number(table, (*table_keys, name), positive=True)
            for name in ("max_file_mb", "max_total_mb")
        }
        return AttachmentLimits(
            max_files=files,
            max_file_mb=sizes["max_file_mb"] or default.max_file_mb,
            max_total_mb=sizes["max_total_mb"] or default.max_total_mb,
        )

    def extras(self, body: Mapping[str, Any], keys: Keys) -> dict[str, Any]:
        models: list[str] = []
        raw_models = body.get("models", [])
        if not isinstance(raw_models, list):
            self.error((*keys, "models"), f"must be an array of strings, not {_kind(raw_models)}")
        elif not all(isinstance(m, str) and m.strip() for m in raw_models):
            self.error((*keys, "models"), "must contain only non-empty strings")
        else:
            models = raw_models
        max_tokens = body.get("max_tokens", DEFAULT_MAX_TOKENS)
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens <= 0:
            shown = f"{max_tokens}" if isinstance(max_tokens, int) else _kind(max_tokens)
            self.error((*keys, "max_tokens"), f"must be a positive integer, not {shown}")
            max_tokens = DEFAULT_MAX_TOKENS
        include_usage = body.get("include_usage", True)
        if not isinstance(include_usage, bool):
            shown = _kind(include_usage)
            self.error((*keys, "include_usage"), f"must be true or false, not {shown}")
            include_usage = True
        max_concurrency = body.get("max_concurrency")
        if max_concurrency is not None and (
            not isinstance(max_concurrency, int)
            or isinstance(max_concurrency, bool)
            or max_concurrency <= 0
        ):
            shown = (
                f"{max_concurrency}" if isinstance(max_concurrency, int) else _kind(max_concurrency)
            )
            self.error((*keys, "max_concurrency"), f"must be a positive integer, not {shown}")
            max_concurrency = None
        prices = {
            price: self.number(body, (*keys, price), positive=False)
            for price in ("price_in", "price_out", "price_cached")
        }
        context_window = body.get("context_window")
        if context_window is not None and (
            not isinstance(context_window, int)
            or isinstance(context_window, bool)
            or context_window <= 0
        ):
            shown = (
                f"{context_window}" if isinstance(context_window, int) else _kind(context_window)
            )
            self.error((*keys, "context_window"), f"must be a positive integer, not {shown}")
            context_window = None
        stream_end = body.get("stream_end", TERMINAL_EVENT)
        if stream_end not in STREAM_ENDS:
            shown = repr(stream_end) if isinstance(stream_end, str) else _kind(stream_end)
            valid = " or ".join(f'"{end}"' for end in STREAM_ENDS)
            self.error((*keys, "stream_end"), f"must be {valid}, not {shown}")
            stream_end = TERMINAL_EVENT
        return {
            "models": tuple(models),
            "params": self.table(body, (*keys, "params")),
            "max_tokens": max_tokens,
            "include_usage": include_usage,
            "max_concurrency": max_concurrency,
            "stream_end": stream_end,
            "context_window": context_window,
            **prices,
        }
