"""textual-serve's server with the `Guard` (serve_guard) in front: its aiohttp application is
built by textual-serve as it is and gets one middleware, outermost, that refuses (403) before
any handler runs, so a refused WebSocket never starts an app process. textual-serve builds the
application in `Server._make_app`, a private method: tests/integration/test_serve.py fails if
it stops doing so."""

from __future__ import annotations

import logging

from aiohttp import hdrs, web
from aiohttp.typedefs import Handler, Middleware
from textual_serve.server import Server

from app.ui.serve_guard import Guard

log = logging.getLogger("triptych.serve")
TOKEN_MISSING = "open the URL `triptych serve` printed: it holds the token"


def guard_middleware(guard: Guard) -> Middleware:
    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        websocket = request.path == "/ws" or (
            request.headers.get(hdrs.UPGRADE, "").lower() == "websocket"
        )
        given = request.query.get("token")
        refusal = guard.host_refused(request.headers.get(hdrs.HOST)) or guard.origin_refused(
            request.headers.get(hdrs.ORIGIN), required=websocket
        )
        if refusal is None and not (
            guard.token_matches(given)
            or guard.token_matches(request.cookies.get(guard.cookie_name))
        ):
            refusal = TOKEN_MISSING
        if refusal is not None:
            # ascii(): the path is the requester's, never written to the terminal as it came.
            log.warning("refused %s %s: %s", request.method, ascii(request.path), refusal)
            return web.Response(status=403, text=f"403 Forbidden: {refusal}\n")
        response = await handler(request)
        if guard.token_matches(given) and not response.prepared:
            response.set_cookie(
                guard.cookie_name,
                guard.token,
                path="/",
                httponly=True,
                samesite="Strict",
                secure=guard.secure,
            )
            # The token stays in the address bar: no other site learns it from a Referer.
            response.headers["Referrer-Policy"] = "no-referrer"
        return response

    return check


class GuardedServer(Server):
    def __init__(self, command: str, host: str, port: int, guard: Guard) -> None:
        super().__init__(
            command, host=host, port=port, title="Triptych", public_url=guard.public_url
        )
        self.guard = guard

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.insert(0, guard_middleware(self.guard))
        return app

    async def on_startup(self, app: web.Application) -> None:
        """The URL to open, alone on its line (not through Rich, which would wrap it)."""
        print(
            "triptych serve: open this URL in a browser; whoever has it uses the app, "
            f"with your API keys:\n    {self.guard.url}\nCtrl+C stops it.",
            flush=True,
        )


__all__ = ["GuardedServer", "guard_middleware"]
