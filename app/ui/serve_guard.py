"""What a request to `triptych serve` must show before textual-serve sees it, as Jupyter does
it: the token made at each start and printed in the URL to open (then its cookie); a `Host` that
names this machine's loopback or `--public-url`'s host, so a page whose domain was re-pointed at
127.0.0.1 (DNS rebinding) is not served; and, when sent (always, on a WebSocket), this server's
`Origin`, so another site's page is not served. Free of aiohttp, so it is tested alone."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from urllib.parse import urlsplit

LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of a URL or an `Origin` header, None when it is not one."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


@dataclass(frozen=True)
class Guard:
    """What a request must show before textual-serve sees it; each check says why it refused."""

    token: str
    port: int
    public_url: str

    @property
    def cookie_name(self) -> str:
        # Browsers share a host's cookies across its ports: the port in the name keeps one
        # server's cookie from another's (Jupyter names its cookies the same way).
        return f"triptych-token-{self.port}"

    @property
    def secure(self) -> bool:
        return self.public_url.lower().startswith("https:")

    @property
    def url(self) -> str:
        """The URL to open, printed at start."""
        return f"{self.public_url.rstrip('/')}/?token={self.token}"

    def host_names(self) -> frozenset[str]:
        public = origin_of(self.public_url)
        return (LOCAL_HOSTS | {public[1]}) if public else LOCAL_HOSTS

    def origins(self) -> frozenset[tuple[str, str, int]]:
        local = {("http", name, self.port) for name in LOCAL_HOSTS}
        public = origin_of(self.public_url)
        return frozenset((local | {public}) if public else local)

    def host_refused(self, host: str | None) -> str | None:
        """Why a `Host` header is refused: only names of this machine or of --public-url, so a
        page whose domain was re-pointed at 127.0.0.1 (DNS rebinding) is not served."""
        plain = host is not None and not any(mark in host for mark in "@/?#\\")
        origin = origin_of(f"http://{host}") if plain else None
        if origin is None or origin[1] not in self.host_names():
            return "this server answers only to localhost, 127.0.0.1, [::1] or --public-url"
        return None

    def origin_refused(self, origin: str | None, *, required: bool) -> str | None:
        """Why an `Origin` header is refused: another site's page (browsers always send it on a
        WebSocket, so one without it is no browser on this page)."""
        if origin is None:
            return "a WebSocket must come from this server's page" if required else None
        if origin_of(origin) not in self.origins():
            return "requests from another site's page are refused"
        return None

    def token_matches(self, given: str | None) -> bool:
        """Constant-time, so the time a refusal takes says nothing about the token."""
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())


__all__ = ["DEFAULT_PORTS", "LOCAL_HOSTS", "Guard", "origin_of"]
