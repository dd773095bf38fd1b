"""Response headers every answer carries, and the interactive API docs (off by default).

:class:`NoSniff` adds ``X-Content-Type-Options: nosniff`` to every response (JSON, errors,
pages), so a browser never guesses another type from a body that quotes a client's text.

The interactive docs (``/docs``: Swagger UI, ``/redoc``) load their scripts from a CDN, so
they are off unless the operator asks for them (``skb serve --api-docs``,
``create_app(..., api_docs=True)``); then each page is sent with a Content-Security-Policy
that allows the CDN's scripts and the page's one inline script (by its hash) and nothing
else. ``/openapi.json`` (the schema, plain JSON) is always served.
"""

# No `from __future__ import annotations`: FastAPI must resolve the endpoints' types.

import base64
import hashlib
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: Where FastAPI's docs pages load Swagger UI and ReDoc from.
DOCS_CDN = "https://cdn.jsdelivr.net"
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)


class NoSniff:
    """ASGI middleware: ``X-Content-Type-Options: nosniff`` on every HTTP response."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one ASGI connection scope."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_header(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() != b"x-content-type-options"]
                message["headers"] = [*headers, (b"x-content-type-options", b"nosniff")]
            await send(message)

        await self.app(scope, receive, send_with_header)


def docs_csp(html: str, *, workers: bool = False) -> str:
    """The Content-Security-Policy of a docs page: the CDN's scripts and styles, the page's
    inline scripts by hash, requests to this server only."""
    hashes = " ".join("'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()
                      + "'" for s in _INLINE_SCRIPT.findall(html))
    policy = (f"default-src 'none'; script-src {DOCS_CDN} {hashes}; "
              f"style-src {DOCS_CDN} https://fonts.googleapis.com 'unsafe-inline'; "
              "font-src https://fonts.gstatic.com; img-src 'self' data: https:; "
              "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
    return policy + ("; worker-src blob:" if workers else "")


def install_api_docs(app: Any) -> None:
    """``GET /docs`` (Swagger UI) and ``GET /redoc``, each with its CSP (see module doc)."""
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
    from fastapi.responses import HTMLResponse

    def page(response: HTMLResponse, workers: bool = False) -> HTMLResponse:
        html = bytes(response.body).decode("utf-8")
        return HTMLResponse(html, headers={"Content-Security-Policy": docs_csp(html, workers=workers),
                                           "Referrer-Policy": "no-referrer"})

    swagger = page(get_swagger_ui_html(openapi_url=app.openapi_url, title=f"{app.title} - docs"))
    redoc = page(get_redoc_html(openapi_url=app.openapi_url, title=f"{app.title} - ReDoc"),
                 workers=True)

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return HTMLResponse(swagger.body, headers=dict(_own(swagger.headers)))

    @app.get("/redoc", include_in_schema=False)
    async def redoc_ui() -> HTMLResponse:
        return HTMLResponse(redoc.body, headers=dict(_own(redoc.headers)))


def _own(headers: Any) -> list[tuple[str, str]]:
    """A page's own headers (its length and type are set again by the response)."""
    return [(k, v) for k, v in headers.items() if k not in ("content-length", "content-type")]
