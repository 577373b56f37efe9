"""What counts as a secret of a provider, and how it is taken out of text the app writes or draws.

One place decides, so every writer (the client's turns and errors, recordings, `ask` output,
crash reports) redacts the same things: the resolved key; every value of an auth-like header
(and the credential after a scheme word such as `Bearer`); the userinfo and secret-named query
values of the base URL; the values of `[params]` entries whose name looks like a secret.

Streams are redacted across read boundaries by `Redactor`: it holds back only a tail that could
be the start of a secret, so a key split over two network reads or two deltas never gets out.
This module imports nothing of the app (the config loader imports it, for `looks_like_key`): a
provider is read through `ProviderSecrets` (the fields of `ProviderConfig` that may hold a
secret), an MCP server through `McpServerSecrets`.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, AnyStr, Generic, Protocol
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

REDACTED = "[redacted]"
MIN_DERIVED = 4  # a value found by its name (a user name, a param) shorter than this is not
# redacted: replacing every "ab" in an answer would hide more than it protects
_SECRET_NAME = re.compile(
    r"key|token|secret|auth|passw|pwd|credential|session|cookie|signature|^sig$", re.IGNORECASE
)
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_KEY_PREFIX = re.compile(r"^((sk|pk|rk|gsk|xai|hf|ghp|gho|ghs|github_pat|glpat)[-_]|AIza|AKIA|eyJ)")
_UPPER_NAME = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$")


def secret_name(name: str) -> bool:
    """A header, query or param name whose value is a credential (X-Api-Key, access_token)."""
    return bool(_SECRET_NAME.search(name))


class ProviderSecrets(Protocol):
    """What of a provider's settings may hold a secret (app.settings.config.ProviderConfig)."""

    @property
    def api_key(self) -> str | None: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    @property
    def base_url(self) -> str: ...
    @property
    def params(self) -> Mapping[str, Any]: ...


def provider_secrets(provider: ProviderSecrets, api_key: str | None) -> tuple[str, ...]:
    """Every secret string the app knows for this provider, longest first (so a secret that
    contains another is replaced whole)."""
    found: list[str] = []
    if api_key:
        found.append(api_key)
        found.append(api_key.strip())
    if provider.api_key:
        found.append(provider.api_key)
    for name, value in provider.headers.items():
        if secret_name(name):
            found.extend(_header_secrets(value))
    found.extend(url_secrets(provider.base_url))
    found.extend(_param_secrets(provider.params, inside_secret=False))
    return unique(found)


class McpServerSecrets(Protocol):
    """What of an MCP server's settings may hold a secret (app.settings.config.McpServerConfig)."""

    @property
    def headers(self) -> Mapping[str, str]: ...
    @property
    def env(self) -> Mapping[str, str]: ...
    @property
    def url(self) -> str | None: ...


def mcp_secrets(server: McpServerSecrets) -> tuple[str, ...]:
    """An MCP server's secrets: auth-like header values, env values whose name looks like a
    secret, and what its URL carries (user:password@, ?key=)."""
    found: list[str] = []
    for name, value in server.headers.items():
        if secret_name(name):
            found.extend(_header_secrets(value))
    found.extend(value for name, value in server.env.items() if secret_name(name))
    if server.url:
        found.extend(url_secrets(server.url))
    return unique(found)


def unique(values: Iterable[str | None]) -> tuple[str, ...]:
    """Non-empty, without repeats, longest first."""
    seen = {v for v in values if v}
    return tuple(sorted(seen, key=lambda v: (-len(v), v)))


def url_secrets(url: str) -> list[str]:
    """The user, password and secret-named query values of a URL (raw and percent-decoded)."""
    try:
        parts = urlsplit(url)
        username, password = parts.username, parts.password
    except ValueError:
        return []
    found: list[str] = []
    if password:
        found += [password, unquote(password)]
    if username and (not password or len(username) >= 8 or looks_like_key(username)):
        found += [v for v in (username, unquote(username)) if len(v) >= MIN_DERIVED]
    for raw in parts.query.split("&"):
        name, _, value = raw.partition("=")
        if value and secret_name(unquote(name)):
            found += [v for v in (value, unquote(value)) if len(v) >= MIN_DERIVED]
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if secret_name(name) and len(value) >= MIN_DERIVED:
            found.append(value)
    return found


def without_userinfo(url: str) -> tuple[str, str | None, str | None]:
    """(the URL without `user:pass@`, the user, the password); the URL unchanged if it has none."""
    try:
        parts = urlsplit(url)
        username, password = parts.username, parts.password
    except ValueError:
        return url, None, None
    if "@" not in parts.netloc:
        return url, None, None
    host = parts.netloc.rpartition("@")[2]
    bare = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    return bare, unquote(username) if username else None, unquote(password) if password else None


def redact_url(url: str, secrets: Iterable[str | None] = ()) -> str:
    """The URL fit to write down: userinfo replaced, secret values scrubbed."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return scrub(url, secrets)
    if "@" in parts.netloc:
        host = parts.netloc.rpartition("@")[2]
        netloc = f"{REDACTED}@{host}"
        url = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return scrub(url, unique([*secrets, *url_secrets(url)]))


def _header_secrets(value: str) -> list[str]:
    found = [value, value.strip()]
    scheme, _, credential = value.strip().partition(" ")
    credential = credential.strip()
    if credential:
        found.append(credential)
        if scheme.lower() == "basic":
            try:
                decoded = base64.b64decode(credential, validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                decoded = ""
            user, _, password = decoded.partition(":")
            found += [decoded, password] + ([user] if len(user) >= 8 else [])
    return [v for v in found if len(v) >= MIN_DERIVED or v is value]


def param_secrets(values: Mapping[str, Any]) -> tuple[str, ...]:
    """The values of request parameters whose name looks like a secret (`--param api_key=…`,
    a nested `{"auth": {"token": …}}`), as `[params]` in the config are treated."""
    return unique(_param_secrets(values, inside_secret=False))


def _param_secrets(value: Any, *, inside_secret: bool) -> list[str]:
    found: list[str] = []
    if isinstance(value, Mapping):
        for name, item in value.items():
            found += _param_secrets(item, inside_secret=inside_secret or secret_name(str(name)))
    elif isinstance(value, list | tuple):
        for item in value:
            found += _param_secrets(item, inside_secret=inside_secret)
    elif inside_secret and isinstance(value, str) and len(value) >= MIN_DERIVED:
        found.append(value)
    return found


def scrub(text: str, secrets: Iterable[str | None]) -> str:
    """`text` with every copy of every secret replaced by "[redacted]"."""
    for secret in secrets:
        if secret and secret in text:
            text = text.replace(secret, REDACTED)
    return text


FRAGMENT = 8  # characters of a secret in a row that a cut text may not keep, wherever they are
SHORT_PART = 4  # a shorter part of a secret inside a text says nothing of it ("s..." is prose)
_CUT_MARK = re.compile(r"…|\.\.\.")
_CLOSERS = "'\"`)]}>»”"  # what may close a quoted sample after its cut


def scrub_cut(text: str, secrets: Iterable[str | None], *, ellipsis: str = "…") -> str:
    """`scrub`, for text that may quote a cut sample of what a server sent.

    A cut can fall anywhere and be spelled any way (`…`, `...` inside a quote, nothing), and a
    message quoting it can be cut again, so no one place is trusted to show it: every run of
    FRAGMENT characters of a secret goes, wherever it is; so does the start of a secret at the
    end of the text or before a cut mark (`…`, `...`, `ellipsis`), and the end of one after a
    mark. Inside the text (a mark with more than closing quotes after it, or a text that ends
    in one), only a part of SHORT_PART characters or more counts. Linear in the text.
    """
    known = unique(secrets)
    if not known:
        return text
    text = _scrub_fragments(scrub(text, known), known)
    parts = _Parts(known)
    marks = [(m.start(), m.end()) for m in _CUT_MARK.finditer(text)]
    if ellipsis and ellipsis not in ("…", "..."):
        marks = sorted({*marks, *((i, i + len(ellipsis)) for i in _find_all(text, ellipsis))})
    body = text.rstrip(_CLOSERS)  # a mark there, or no mark, is where the text was cut
    spans: list[tuple[int, int]] = []
    for start, end in marks:
        head = parts.head(text, end)
        ends = end + head >= len(body)
        tail = parts.tail(text, start, least=1 if ends else SHORT_PART)
        if tail:
            spans.append((start - tail, start))
        if head:
            spans.append((end, end + head))
    tail = parts.tail(body, len(body), least=1 if body == text else SHORT_PART)
    if tail:
        spans.append((len(body) - tail, len(body)))
    spans = sorted(set(spans))
    kept = [span for n, span in enumerate(spans) if n == 0 or span[0] >= spans[n - 1][1]]
    return _replaced(text, kept, REDACTED)


class _Parts:
    """Where a part of a secret starts or ends a text at a given place. Run after every run of
    FRAGMENT characters is gone, so a part is shorter than that: a few set lookups a place."""

    def __init__(self, secrets: Sequence[str]) -> None:
        short = range(1, FRAGMENT)
        self.starts = {s[:n] for s in secrets for n in short if n < len(s)}
        self.endings = {s[-n:] for s in secrets for n in short if SHORT_PART <= n < len(s)}
        # Every part of SHORT_PART or more holds one of these at its start and at its end.
        self.quads = {s[i : i + SHORT_PART] for s in secrets for i in range(len(s) - 3)}

    def head(self, text: str, at: int) -> int:
        """How many characters from `at` are the end of a secret (SHORT_PART or more)."""
        if text[at : at + SHORT_PART] not in self.quads:
            return 0
        for size in range(FRAGMENT - 1, SHORT_PART - 1, -1):
            if text[at : at + size] in self.endings:
                return size
        return 0

    def tail(self, text: str, at: int, *, least: int) -> int:
        """How many characters before `at` are the start of a secret (`least` or more)."""
        if least >= SHORT_PART and text[at - SHORT_PART : at] not in self.quads:
            return 0
        for size in range(min(FRAGMENT - 1, at), least - 1, -1):
            if text[at - size : at] in self.starts:
                return size
        return 0


def _scrub_fragments(text: str, secrets: Sequence[str]) -> str:
    """`text` with every run of FRAGMENT characters of a secret replaced (runs merged)."""
    patterns = {
        s[i : i + FRAGMENT]
        for s in secrets
        if len(s) > FRAGMENT
        for i in range(len(s) - FRAGMENT + 1)
    }
    return _replaced(text, covered(text, tuple(patterns)), REDACTED) if patterns else text


def _find_all(text: str, piece: str) -> list[int]:
    found, at = [], text.find(piece)
    while at != -1:
        found.append(at)
        at = text.find(piece, at + len(piece))
    return found


def scrub_json(value: Any, secrets: Sequence[str]) -> Any:
    """A copy of a JSON value with every string (keys included) scrubbed."""
    if isinstance(value, str):
        return scrub(value, secrets)
    if isinstance(value, dict):
        return {scrub(str(k), secrets): scrub_json(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_json(v, secrets) for v in value]
    return value


def held_tail(text: AnyStr, secrets: Sequence[AnyStr]) -> int:
    """How many characters at the end of `text` could be the beginning of a secret."""
    longest = max((len(s) for s in secrets), default=0)
    start = max(0, len(text) - longest + 1)
    firsts = {s[:1] for s in secrets}
    for i in range(start, len(text)):
        if text[i : i + 1] not in firsts:
            continue
        tail = text[i:]
        if any(s.startswith(tail) for s in secrets):
            return len(text) - i
    return 0


class Redactor(Generic[AnyStr]):
    """Scrubs a stream of pieces (bytes or str) so a secret split across pieces is caught.

    `feed` returns what is safe to pass on now; `flush` returns the rest at the end. With
    `fragments=N`, every run of N characters of a secret is redacted too: raw bytes framed as
    events can hold a key in two halves with framing between (no whole copy to find).
    """

    def __init__(self, secrets: Sequence[AnyStr], redacted: AnyStr, *, fragments: int = 0) -> None:
        patterns: set[AnyStr] = set()
        # Every copy of a pattern holds one of these (a prefilter: most pieces hold none). A
        # run of 7+ characters of a secret holds one of its 4-grams that start at a multiple
        # of 4; a whole secret holds its first 4 characters.
        anchors: set[AnyStr] = set()
        for secret in secrets:
            if not secret:
                continue
            if fragments and len(secret) > fragments:
                patterns.update(
                    secret[i : i + fragments] for i in range(len(secret) - fragments + 1)
                )
                if fragments >= 7:
                    anchors.update(secret[i : i + 4] for i in range(0, len(secret) - 3, 4))
                else:
                    anchors.update(secret[i : i + fragments] for i in range(len(secret)))
            else:
                patterns.add(secret)
                anchors.add(secret[:4])
        self.patterns: tuple[AnyStr, ...] = tuple(sorted(patterns, key=len, reverse=True))
        self._anchors: tuple[AnyStr, ...] = tuple(a for a in anchors if a)
        # Every start of a pattern (itself too): the tail a piece may have to hold back.
        self._starts: frozenset[AnyStr] = frozenset(
            p[:n] for p in self.patterns for n in range(1, len(p) + 1)
        )
        self._longest = max((len(p) for p in self.patterns), default=0)
        self.redacted: AnyStr = redacted
        self._held: AnyStr = redacted[:0]
        self._limit = 4 * self._longest

    def _covered(self, text: AnyStr) -> list[tuple[int, int]]:
        for anchor in self._anchors:
            if anchor in text:
                return covered(text, self.patterns)
        return []

    def _tail(self, text: AnyStr) -> int:
        """`held_tail`, by set lookups: how much of the end of `text` could start a pattern."""
        starts = self._starts
        for i in range(max(0, len(text) - self._longest + 1), len(text)):
            if text[i:] in starts:
                return len(text) - i
        return 0

    def feed(self, piece: AnyStr) -> AnyStr:
        if not self.patterns:
            return piece
        text: AnyStr = self._held + piece
        runs = self._covered(text)
        cut = len(text) - self._tail(text)
        for start, end in runs:
            if end > cut:  # a match reaching into the held tail may grow: hold it whole
                cut = min(cut, start)
        if len(text) - cut > self._limit:
            cut = len(text)  # a pathological run of one secret: never hold without bound
        held: AnyStr = text[cut:]
        self._held = held
        return _replaced(text[:cut], [r for r in runs if r[1] <= cut], self.redacted)

    @property
    def pending(self) -> bool:
        return bool(self._held)

    def flush(self) -> AnyStr:
        """What is held, redacted; a held start of a secret (4+ characters) is redacted too."""
        held: AnyStr = self._held
        self._held = self.redacted[:0]
        if not held:
            return held
        done = _replaced(held, self._covered(held), self.redacted)
        tail = self._tail(done)
        if tail >= 4:
            done = done[: len(done) - tail] + self.redacted
        return done


def covered(text: AnyStr, patterns: Sequence[AnyStr]) -> list[tuple[int, int]]:
    """The (start, end) spans of `text` covered by copies of `patterns`, merged, in order."""
    spans: list[tuple[int, int]] = []
    for pattern in patterns:
        at = text.find(pattern)
        while at != -1:
            spans.append((at, at + len(pattern)))
            at = text.find(pattern, at + 1)
    if not spans:
        return []
    spans.sort()
    merged = [spans[0]]
    for start, end in spans[1:]:
        last_start, last_end = merged[-1]
        if start < last_end:
            merged[-1] = (last_start, max(last_end, end))
        else:
            merged.append((start, end))
    return merged


def _replaced(text: AnyStr, spans: list[tuple[int, int]], redacted: AnyStr) -> AnyStr:
    if not spans:
        return text
    parts: list[AnyStr] = []
    at = 0
    for start, end in spans:
        parts += [text[at:start], redacted]
        at = end
    parts.append(text[at:])
    joined: AnyStr = redacted[:0].join(parts)
    return joined


def looks_like_key(value: str) -> bool:
    """A value that is more likely a pasted key than the NAME of an environment variable."""
    value = value.strip()
    if not value:
        return False
    if not _ENV_NAME.match(value) or _KEY_PREFIX.match(value):
        return True
    if _UPPER_NAME.match(value):
        return len(value) >= 32 and "_" not in value  # FOO_API_KEY is a name, 40 random caps not
    digits = sum(c.isdigit() for c in value)
    return len(value) >= 20 and digits >= 3 and value.count("_") <= 1


def shown_env_name(name: str) -> str:
    """An `api_key_env` value fit to print: the name, or a mask when it looks like a key."""
    if looks_like_key(name):
        return f"[a key? {len(name)} characters, not shown]"
    return name


__all__ = [
    "FRAGMENT",
    "REDACTED",
    "Redactor",
    "covered",
    "held_tail",
    "looks_like_key",
    "param_secrets",
    "provider_secrets",
    "redact_url",
    "scrub",
    "scrub_cut",
    "scrub_json",
    "secret_name",
    "shown_env_name",
    "unique",
    "url_secrets",
    "without_userinfo",
]
