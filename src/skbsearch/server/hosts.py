"""The ``Host`` header check (a defence against DNS rebinding).

A web page on another site can reach a server bound to 127.0.0.1 by pointing its own
host name at 127.0.0.1 (DNS rebinding); the browser then sends that foreign name in
``Host``. :class:`AllowedHosts` answers 400 to any request whose ``Host`` (port aside) is
not one of the server's names: by default those of the loopback address
(:data:`LOCAL_HOSTS`), ``skb serve --allowed-hosts`` for others, ``*`` for any.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from skbsearch.server.limits import ASGIApp, Receive, Scope, Send

#: The names of the loopback interface (the default of ``create_app`` and ``skb serve``).
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


def host_name(header: str) -> str:
    """The host of a ``Host`` header without its port (``[::1]:8000`` -> ``::1``), lowercased."""
    h = header.strip().lower()
    if h.startswith("["):
        return h[1:h.find("]")] if "]" in h else h[1:]
    if h.count(":") == 1:
        return h.partition(":")[0]
    return h


def default_hosts(bind: str) -> tuple[str, ...]:
    """``skb serve``'s default for ``--allowed-hosts`` when bound to ``bind``.

    A loopback address (the default bind): the loopback names and the address itself,
    since only pages in a local browser reach it, through DNS rebinding. Any other
    address: any host (``*``), as the operator exposes the server on purpose and alone
    knows its public names (give them with ``--allowed-hosts`` to check them).
    """
    name = host_name(bind) if bind.startswith("[") else bind.strip().lower()
    if name in LOCAL_HOSTS or name.startswith("127."):
        return tuple(dict.fromkeys((*LOCAL_HOSTS, name)))
    return ("*",)


class AllowedHosts:
    """ASGI middleware: 400 unless the request's ``Host`` names one of ``hosts``.

    Args:
        app: the application.
        hosts: allowed host names (no port); ``*`` allows any, ``.example.org`` any
            subdomain of example.org and example.org itself.
    """

    def __init__(self, app: ASGIApp, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = {h.strip().lower() for h in hosts if h.strip()}
        self.any = "*" in self.hosts

    def allowed(self, host: str) -> bool:
        """Whether a ``Host`` header value is allowed."""
        name = host_name(host)
        if not name:
            return False
        if self.any or name in self.hosts:
            return True
        return any(h.startswith(".") and (name.endswith(h) or name == h[1:]) for h in self.hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one ASGI connection scope."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = ""
        for name, value in scope.get("headers", []):
            if name.lower() == b"host":
                host = value.decode("latin-1")
                break
        if self.allowed(host):
            await self.app(scope, receive, send)
            return
        shown = host[:100].encode("ascii", "backslashreplace").decode("ascii")
        data = json.dumps({"detail": f"Host {shown!r} is not one of this server's names; "
                           "start it with --allowed-hosts to accept it"}).encode()
        await send({"type": "http.response.start", "status": 400,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(data)).encode())]})
        await send({"type": "http.response.body", "body": data})
