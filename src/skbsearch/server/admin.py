"""``POST /admin/update``: live updates of the served SKB over HTTP (off unless configured).

The endpoint exists only when the server was given an admin token (``skb serve
--admin-token-file FILE`` or ``$SKB_ADMIN_TOKEN``); a request must carry it as
``Authorization: Bearer TOKEN`` (compared with :func:`hmac.compare_digest`, in constant
time; the scheme is case-insensitive, a bare token is refused, RFC 6750). The body is
bounded like every other request (``Limits.max_body_bytes``) and must be standard JSON (no
``NaN``/``Infinity``, nesting at most :data:`MAX_DEPTH` deep, text without unpaired
surrogates; 422 otherwise)::

    {"nodes": [{"id": ..., "type": ..., ...}], "edges": [{"source": ..., "relation": ...,
     "target": ...}], "delete_nodes": ["id", ...], "delete_edges": [{...}]}

Records are those of ``skb kb build``'s JSONL files and go through the same checks
(:func:`skbsearch.kb.update.update`): a bad record is a 422 naming the list, the record's
position and the field (never a server path), and nothing changes. A good update commits
one generation and is answered 200 with it, once the service serves it (read-your-writes:
the next ``/health`` and search show it; requests in flight finish on theirs). The request's
deadline (``--request-timeout``) applies up to the commit point: an update stopped there is a
504 and changed nothing; after it, the reload completes and the answer is 200. Updates run on
their own worker (one at a time, as the writers' lock wants), never on a search lane; the new
generation is opened in the background (:class:`~skbsearch.server.holder.SnapshotHolder`).
"""

# No `from __future__ import annotations`: FastAPI must resolve the endpoint's Request.

import asyncio
import hmac
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from skbsearch.core.deadline import Deadline, deadline
from skbsearch.core.errors import DeadlineExceeded, InputError
from skbsearch.core.jsonl import check_json_text
from skbsearch.server.lanes import BoundedExecutor, Busy

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

#: Environment variable holding the admin token (``--admin-token-file`` wins).
TOKEN_ENV = "SKB_ADMIN_TOKEN"
_LISTS = ("nodes", "edges", "delete_nodes", "delete_edges")
#: Deepest nesting of arrays and objects accepted in an update body.
MAX_DEPTH = 32


def read_token(token_file: str | Path | None) -> str | None:
    """The admin token from ``token_file`` (stripped) or ``$SKB_ADMIN_TOKEN``; ``None``: off.
    A token shorter than 16 characters is refused (it would be guessable)."""
    token = (Path(token_file).read_text(encoding="utf-8").strip() if token_file is not None
             else os.environ.get(TOKEN_ENV, "").strip())
    if not token:
        return None
    if len(token) < 16:
        raise InputError("the admin token must have at least 16 characters", file=token_file,
                         field="admin-token")
    return token


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header (RFC 6750: the scheme is
    case-insensitive, then one or more spaces); ``None`` for any other header, a bare token
    included."""
    scheme, sep, credentials = (header or "").partition(" ")
    credentials = credentials.lstrip(" ")
    if not sep or scheme.lower() != "bearer" or not credentials or " " in credentials:
        return None
    return credentials


def authorised(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``token`` (constant-time comparison)."""
    given = bearer_token(header)
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), token.encode("utf-8"))


def _refuse_constant(name: str) -> Any:
    raise InputError(f"{name} is not a JSON number; send standard JSON", field="body")


def read_body(raw: bytes) -> dict[str, Any]:
    """The update body: a JSON object of standard JSON (see the module docstring).

    Raises:
        InputError: not UTF-8, not JSON, ``NaN``/``Infinity``, nested deeper than
            :data:`MAX_DEPTH`, an unpaired surrogate (naming the field), or not an object.
    """
    try:
        text = raw.decode("utf-8")
        body = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise InputError(f"the body nests deeper than {MAX_DEPTH} levels", field="body") from None
    except (ValueError, UnicodeDecodeError) as e:
        if isinstance(e, InputError):
            raise
        raise InputError("the body must be a JSON object", field="body") from None
    if not isinstance(body, dict):
        raise InputError("the body must be a JSON object", field="body")
    _check_depth(body)
    check_json_text(text, body)
    return body


def _check_depth(value: Any) -> None:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InputError(f"the body nests deeper than {MAX_DEPTH} levels", field="body")
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))


def apply_update(skb_dir: Path, body: dict[str, Any]) -> dict[str, Any]:
    """Apply an update body (see :func:`commit_update`) and list the indexes it left stale."""
    return {**commit_update(skb_dir, body), "stale_indexes": _stale(skb_dir)}


def commit_update(skb_dir: Path, body: dict[str, Any], previous: "SKB | None" = None) -> dict[str, Any]:
    """Write the body's lists as JSONL files (ids one a line) and run the update on them
    (``previous``: a generation of the SKB in memory, see ``kb.update.update``).

    Raises:
        InputError: a bad record, named by list and position (no server path).
        DeadlineExceeded: the current deadline passed before the commit point (nothing
            changed).
    """
    from skbsearch.kb.update import update

    unknown = sorted(set(body) - set(_LISTS))
    if unknown:
        raise InputError(f"unknown key(s) {unknown}; give {', '.join(_LISTS)}", field=unknown[0])
    with tempfile.TemporaryDirectory(prefix="skb-admin-") as tmp:
        files: dict[str, Path] = {}
        for key in _LISTS:
            items = body.get(key)
            if items is None:
                continue
            if not isinstance(items, list):
                raise InputError(f"'{key}' must be a list", field=key)
            path = Path(tmp) / (f"{key}.txt" if key == "delete_nodes" else f"{key}.jsonl")
            lines = [_line(key, k, x) for k, x in enumerate(items)]
            path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
            files[key] = path
        try:
            return update(skb_dir, **files, previous=previous).to_dict()
        except InputError as e:
            where = Path(str(e.file)).stem if e.file is not None else None
            at = f"{where}[{e.line - 1}]" if where and e.line else (where or "body")
            reason = _without_paths(e.reason, tmp, skb_dir)
            raise InputError(f"{at}: {reason}", field=e.field) from None


def _without_paths(text: str, tmp: str, skb_dir: Path) -> str:
    """``text`` without the server's paths (the temp dir of the body's files, the SKB's)."""
    for path, name in ((os.path.realpath(tmp), "the body"), (tmp, "the body"),
                       (str(skb_dir.resolve()), "the SKB"), (str(skb_dir), "the SKB")):
        text = text.replace(path + os.sep, "").replace(path, name)
    return text


def _stale(skb_dir: Path) -> list[str]:
    from skbsearch.index.live import stale_indexes
    from skbsearch.kb.generations import current

    gen = current(skb_dir)
    return stale_indexes(skb_dir, gen.lineage, gen.content_hash) if gen else []


def _line(key: str, k: int, item: Any) -> str:
    if key == "delete_nodes":
        # ids are exact (kb.update.read_ids reads this file split at \n only, nothing trimmed)
        if not isinstance(item, (str, int)) or isinstance(item, bool) or item == "":
            raise InputError(f"delete_nodes[{k}]: an id must be a non-empty string or an integer",
                             field="delete_nodes")
        if "\n" in str(item):
            raise InputError(f"delete_nodes[{k}]: no node id holds a line break", field="delete_nodes")
        return str(item)
    if not isinstance(item, dict):
        raise InputError(f"{key}[{k}]: expected an object", field=key)
    return json.dumps(item, ensure_ascii=False)



class ServedSnapshot(Protocol):
    """What a reload returns: the snapshot now served (its SKB generation)."""

    generation: int


def install_admin(app: Any, skb_dir: Path, token: str | None, *, timeout: float,
                  reload: Callable[[int], ServedSnapshot], max_pending: int = 64,
                  served: "Callable[[], SKB] | None" = None) -> None:
    """Add ``POST /admin/update`` to ``app`` when ``token`` is set (else nothing).

    Args:
        timeout: seconds an update may run before its commit point (504 after, unchanged).
        reload: ``reload(generation)`` returns once the service serves that generation
            (or a later one); the answer waits for it (read-your-writes).
        max_pending: updates running or queued at once (503 above).
        served: the SKB served now: the update opens the generation it changes from it
            (``kb.live_next``) instead of merging every pending segment again.
    """
    if not token:
        return
    from fastapi import HTTPException, Request

    worker = BoundedExecutor(1, max_pending, name="skb-admin")

    def job(body: dict[str, Any], limit: Deadline) -> dict[str, Any]:
        limit.start()
        with deadline(limit):
            limit.check()
            result = commit_update(skb_dir, body, served() if served is not None else None)
        # Committed (or nothing to commit): no deadline from here on.
        result["stale_indexes"] = _stale(skb_dir)
        result["served_generation"] = int(reload(int(result["generation"])).generation)
        return result

    @app.post("/admin/update")
    async def admin_update(request: Request) -> dict[str, Any]:
        if not authorised(request.headers.get("authorization"), token):
            raise HTTPException(401, "admin token required", headers={"WWW-Authenticate": "Bearer"})
        try:
            body = read_body(await request.body())
            return await asyncio.wrap_future(worker.submit(lambda: job(body, Deadline(timeout, start=False))))
        except InputError as e:
            raise HTTPException(422, str(e)[:500]) from None
        except DeadlineExceeded:
            raise HTTPException(504, f"the update ran past the server's time limit of {timeout:g} s "
                                "(--request-timeout) before its commit point and was not applied: "
                                "nothing changed") from None
        except Busy:
            raise HTTPException(503, "too many updates queued; retry later",
                                headers={"Retry-After": "1"}) from None
