"""Service limits: how much one request may ask for, and the body-size guard.

Every limit is a field of :class:`Limits` (``create_app(..., limits=Limits(...))``; the
``skb serve`` options set the same fields). :class:`BodySizeLimit` refuses an oversized
request body with 413 *before* anything parses it: it trusts neither ``Content-Length``
alone nor the client's chunking, and counts the bytes as they stream in.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def _default_workers() -> int:
    return max(1, min(4, os.cpu_count() or 1))


@dataclass(frozen=True)
class Limits:
    """What one request may ask of the service.

    Attributes:
        max_body_bytes: largest request body (413 above it).
        max_batch: most queries in one ``POST /search`` (413 above it).
        max_query_chars: longest query text (422 above it).
        max_where_chars: longest ``where`` predicate (422 above it).
        max_types: most node types in one ``types`` filter (422 above it).
        max_k: largest ``k`` (422 above it).
        max_results: largest ``k`` x number of queries, i.e. hits in one response (422).
        max_spec_chars: longest pipeline spec or name in a request (422 above it).
        max_pipeline_stages: most registered stages in a client's pipeline (400 above it).
        max_evidence_hits: hits of one response that get evidence lines (later ones: none).
        max_page: most neighbours per relation in one ``GET /nodes/{id}`` page (422).
        search_workers: threads of each of the light and normal lanes (searches, node
            lookups run on lanes by cost, see ``server.budget``; SKB reloads run on a
            background thread, updates on their own worker).
        heavy_workers: threads of the heavy lane (models, big size parameters, indexes
            built in memory), so that heavy work never holds up the others.
        max_pending: requests running or queued at once in a lane; more get 503.
        max_candidates: the cap of every size parameter of a client's spec (``k``,
            ``n_text``, ``n_graph``, ``top_k``...), lowered to the SKB's node count (400).
        request_timeout: seconds a request's work may take once it runs (the queue is
            bounded by ``max_pending``); then it stops at the next check and gets 504.
        pipeline_cache_bytes: estimated memory of the built pipelines kept per snapshot.
        light_filter_cost: estimated cost of a request's ``where`` filters above which it
            runs on the heavy lane (``server.budget``; the unit is one numeric comparison
            of a row, ``kb.predicate_cost``).
        max_filter_cost: estimated cost of a request's ``where`` filters above which it is
            refused (400) before it queues.
    """

    max_body_bytes: int = 1_000_000
    max_batch: int = 100
    max_query_chars: int = 1_000
    max_where_chars: int = 1_000
    max_types: int = 100
    max_k: int = 1_000
    max_results: int = 10_000
    max_spec_chars: int = 1_000
    max_pipeline_stages: int = 16
    max_evidence_hits: int = 200
    max_page: int = 200
    search_workers: int = _default_workers()
    heavy_workers: int = max(1, _default_workers() // 2)
    max_pending: int = 64
    max_candidates: int = 10_000
    request_timeout: float = 30.0
    pipeline_cache_bytes: int = 256 * 2**20
    light_filter_cost: int = 10_000_000
    max_filter_cost: int = 1_000_000_000

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if name == "request_timeout":
                if isinstance(value, bool) or not isinstance(value, (int, float)) \
                        or not 0 < value <= 86_400:
                    raise ValueError(f"limit {name} must be a number of seconds in (0, 86400], "
                                     f"got {value!r}")
            elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"limit {name} must be a positive integer, got {value!r}")

    def check_search(self, n_queries: int, longest_query: int, k: int,
                     where: str | None, n_types: int,
                     spec: str | None = None) -> tuple[int, str] | None:
        """``(status, message)`` when a search request breaks a limit, else ``None``."""
        if spec is not None and len(spec) > self.max_spec_chars:
            return 422, (f"a pipeline of {len(spec)} characters exceeds the limit of "
                         f"{self.max_spec_chars}")
        if n_queries > self.max_batch:
            return 413, (f"batch of {n_queries} queries exceeds the limit of {self.max_batch}; "
                         "split it into smaller requests")
        if longest_query > self.max_query_chars:
            return 422, (f"a query of {longest_query} characters exceeds the limit of "
                         f"{self.max_query_chars}")
        if not 1 <= k <= self.max_k:
            return 422, f"k must be between 1 and {self.max_k}, got {k}"
        if k * n_queries > self.max_results:
            return 422, (f"k={k} for {n_queries} queries asks for {k * n_queries} results; "
                         f"the limit is {self.max_results} a request (lower k or split the batch)")
        if where is not None and len(where) > self.max_where_chars:
            return 422, (f"a 'where' predicate of {len(where)} characters exceeds the limit of "
                         f"{self.max_where_chars}")
        if n_types > self.max_types:
            return 422, f"{n_types} node types exceed the limit of {self.max_types}"
        return None


def check_text(fields: Mapping[str, Any]) -> tuple[int, str] | None:
    """``(400, message)`` when a text field (or an item of a list of them) is not valid text.

    JSON may carry unpaired UTF-16 surrogates (``"\\ud800"``) that no UTF-8 consumer can
    take; such text is refused here, naming the field, before it reaches a tokenizer, the
    predicate engine or a log line.
    """
    for name, value in fields.items():
        items = value if isinstance(value, (list, tuple)) else [value]
        for j, item in enumerate(items):
            if not isinstance(item, str):
                continue
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as e:
                where = f"{name}[{j}]" if isinstance(value, (list, tuple)) else name
                return 400, (f"field '{where}' is not valid text: an unpaired surrogate "
                             f"(U+{ord(item[e.start]):04X}) at character {e.start}; send "
                             "UTF-8 text")
    return None


class BodyTooLarge(Exception):
    """Raised inside :class:`BodySizeLimit` when the streamed body passes the limit."""


class BodySizeLimit:
    """ASGI middleware: read at most ``max_bytes`` of an HTTP request body, else answer 413.

    The body is buffered here (it is small by construction) and replayed to the app, so
    the app never starts on a request that turns out too large.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one ASGI connection scope."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(send)
            return
        try:
            body = await self._read(receive)
        except BodyTooLarge:
            await self._refuse(send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _read(self, receive: Receive) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                raise BodyTooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    async def _refuse(self, send: Send) -> None:
        payload = json.dumps({"detail": f"request body exceeds the limit of {self.max_bytes} bytes"})
        data = payload.encode("utf-8")
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(data)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": data})


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
