"""What an HTTP client is told when a request fails, and what only the server log sees.

A client gets our own messages (they name its input and what to do) and nothing else:
an error that came from an engine (DuckDB, pyarrow, the OS) or that names a server-side
file is replaced by a generic message, and the full error goes to the log.
"""

from __future__ import annotations

import logging
from typing import Any

from skbsearch.core.errors import (
    ArtefactError,
    DeadlineExceeded,
    InputError,
    SkbError,
    UntrustedFileError,
)
from skbsearch.stages import available_stages

logger = logging.getLogger("skbsearch.server")

#: Longest message echoed to a client (our messages may quote the client's input).
MAX_MESSAGE_CHARS = 300
INTERNAL_ERROR = "internal error"


class IndexNotBuilt(ArtefactError):
    """The SKB being served has no index of the requested kind."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        super().__init__(f"no {kind} index for this SKB; build it with "
                         f"'skb index SKB_DIR --kind {kind}'")


class StaleIndex(ArtefactError):
    """The index on disk was built from another build of the SKB than the one served."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        super().__init__(f"the {kind} index was built from another build of this SKB; "
                         f"rebuild it with 'skb index SKB_DIR --kind {kind} --force'")


class UnknownNode(InputError):
    """A node id the SKB does not have (404)."""

    def __init__(self, node_id: str) -> None:
        super().__init__(f"unknown node id {node_id[:200]!r}")


class PipelineRefused(InputError):
    """A pipeline spec the server will not run; the response lists the registered stages."""

    def __init__(self, message: str, field: str | None = "pipeline") -> None:
        super().__init__(message, field=field)
        self.stages = available_stages()


class FilterTooCostly(InputError):
    """A ``where`` predicate whose estimated cost is over the server's budget (400)."""

    def __init__(self, cost: float, budget: int) -> None:
        super().__init__(f"the 'where' filter is estimated to cost {cost:,.0f}, over the server's "
                         f"budget of {budget:,} (--max-filter-cost); use a cheaper one: comparisons "
                         "(=, <, IN), LIKE 'abc%' or '%abc%', no long runs of '_'", field="where")
        self.cost = cost
        self.budget = budget


class SnapshotChanged(SkbError):
    """The SKB directory changed under a request; it should be retried on the new build."""


def is_foreign(exc: BaseException) -> bool:
    """Whether ``exc`` or anything in its cause/context chain is not one of our errors.

    Builtin lookup and value errors (a ``KeyError`` turned into "unknown node id") are
    ours in effect; OS errors and every third-party exception are not.
    """
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        module = type(e).__module__
        if module == "builtins":
            if isinstance(e, OSError):
                return True
        elif not module.startswith("skbsearch"):
            return True
        e = e.__cause__ or e.__context__
    return False


def public_error(exc: BaseException) -> tuple[int, str]:
    """``(status, message)`` safe to send to a client for ``exc``."""
    if isinstance(exc, (IndexNotBuilt, UnknownNode)):
        return 404, _clip(str(exc))
    if isinstance(exc, StaleIndex):
        return 503, str(exc)
    if isinstance(exc, SnapshotChanged):
        return 503, "the SKB is being rebuilt; retry the request"
    if isinstance(exc, DeadlineExceeded):
        limit = f" of {exc.seconds:g} s" if exc.seconds is not None else ""
        return 504, (f"the request ran past the server's time limit{limit} (--request-timeout) "
                     "and was stopped; ask for less (a smaller k, fewer candidates or queries)")
    if isinstance(exc, UntrustedFileError):
        return 400, ("the pipeline names a model or file that holds pickled data, which the "
                     "server refuses to load; re-save it in a safe format (the server log "
                     "names the file)")
    if isinstance(exc, InputError):
        if is_foreign(exc) or exc.file is not None:
            # SKB.sql reports engine errors under field "query"; here that is the predicate.
            what = {None: "request", "query": "'where' predicate"}.get(exc.field, f"'{exc.field}'")
            return 400, f"invalid {what}: it could not be evaluated"
        return 400, _clip(str(exc))
    if isinstance(exc, ArtefactError):
        return 503, "the SKB or an index is unavailable; see the server log"
    return 500, INTERNAL_ERROR


def _clip(message: str) -> str:
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    return message[: MAX_MESSAGE_CHARS - 1] + "…"


def install_error_handlers(app: Any) -> None:
    """Register handlers on a FastAPI ``app``: our errors, validation errors, everything else."""
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse

    async def skb_error(request: Any, exc: Exception) -> JSONResponse:
        status, message = public_error(exc)
        if status >= 500 or message != _clip(str(exc)):
            logger.warning("%s %s -> %d: %r", request.method, request.url.path, status, exc,
                           exc_info=status >= 500 and status != 504)
        body: dict[str, Any] = {"detail": message}
        stages = getattr(exc, "stages", None)  # a refused pipeline lists the valid stages
        if status == 400 and isinstance(stages, list):
            body["stages"] = stages
        return JSONResponse(body, status_code=status)

    async def validation_error(request: Any, exc: RequestValidationError) -> JSONResponse:
        # FastAPI's default echoes the offending input back (a 1 MB query, a file's text…).
        errors = [{"loc": list(e.get("loc", ())), "msg": str(e.get("msg", ""))[:200],
                   "type": e.get("type", "")} for e in exc.errors()[:20]]
        return JSONResponse({"detail": errors}, status_code=422)

    async def unexpected(request: Any, exc: Exception) -> JSONResponse:
        logger.error("%s %s -> 500", request.method, request.url.path, exc_info=exc)
        return JSONResponse({"detail": INTERNAL_ERROR}, status_code=500)

    app.add_exception_handler(SkbError, skb_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(Exception, unexpected)
