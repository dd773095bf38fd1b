"""The web explorer's pages and assets, served from the package (no CDN, no build step).

``/`` and ``/node/{id}`` answer the same small HTML page; ``app.js`` (vanilla JS) routes on
the URL and calls the JSON API. Assets are read once from ``skbsearch/server/static`` into
an allow-list, so a request path never reaches the file system. Every page carries a
strict Content-Security-Policy (scripts and styles from this server only); the script
puts data in the DOM with ``textContent`` only.
"""

# No `from __future__ import annotations`: FastAPI must resolve the local `Request`.

import hashlib
from importlib import resources
from typing import Any

#: Asset name -> media type. Only these are served.
ASSETS = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
}
SECURITY_HEADERS = {
    "Content-Security-Policy": ("default-src 'none'; script-src 'self'; style-src 'self'; "
                                "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
                                "form-action 'self'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


def load_assets() -> dict[str, tuple[bytes, str, str]]:
    """``{name: (content, media type, etag)}`` of the packaged assets."""
    root = resources.files("skbsearch.server") / "static"
    out = {}
    for name, media in ASSETS.items():
        data = (root / name).read_bytes()
        out[name] = (data, media, '"' + hashlib.sha256(data).hexdigest()[:16] + '"')
    return out


def install_web(app: Any) -> None:
    """Add ``GET /``, ``GET /node/{id}`` and ``GET /static/{name}`` to a FastAPI ``app``."""
    from fastapi import HTTPException, Request
    from fastapi.responses import Response

    assets = load_assets()

    def send(name: str, request: Request) -> Response:
        data, media, etag = assets[name]
        headers = {**SECURITY_HEADERS, "ETag": etag, "Cache-Control": "no-cache"}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(data, media_type=media, headers=headers)

    @app.get("/", include_in_schema=False)
    async def index(request: Request) -> Response:
        return send("index.html", request)

    @app.get("/node/{node_id:path}", include_in_schema=False)
    async def node_page(node_id: str, request: Request) -> Response:
        return send("index.html", request)

    @app.get("/static/{name}", include_in_schema=False)
    async def static(name: str, request: Request) -> Response:
        if name not in assets or name == "index.html":
            raise HTTPException(404, "no such asset")
        return send(name, request)
