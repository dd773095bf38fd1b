"""``POST /admin/update``: live updates of the served SKB over HTTP (off unless configured).

The endpoint exists only when the server was given an admin token (``skb serve
--admin-token-file FILE`` or ``$SKB_ADMIN_TOKEN``); a request must carry it as
``Authorization: Bearer TOKEN`` (compared with :func:`hmac.compare_digest`, in constant
time). The body is bounded like every other request (``Limits.max_body_bytes``)::

    {"nodes": [{"id": ..., "type": ..., ...}], "edges": [{"source": ..., "relation": ...,
     "target": ...}], "delete_nodes": ["id", ...], "delete_edges": [{...}]}

Records are those of ``skb kb build``'s JSONL files and go through the same checks
(:func:`skbsearch.kb.update.update`): a bad record is a 422 naming the list, the record's
position and the field, and nothing changes. A good update commits one generation; the next
request is answered from it, requests in flight finish on theirs.
"""

# No `from __future__ import annotations`: FastAPI must resolve the endpoint's Request.

import hmac
import json
import os
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError

#: Environment variable holding the admin token (``--admin-token-file`` wins).
TOKEN_ENV = "SKB_ADMIN_TOKEN"
_LISTS = ("nodes", "edges", "delete_nodes", "delete_edges")


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


def authorised(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``token`` (constant-time comparison)."""
    given = (header or "").removeprefix("Bearer ").strip()
    return hmac.compare_digest(given.encode("utf-8"), token.encode("utf-8"))


def apply_update(skb_dir: Path, body: dict[str, Any]) -> dict[str, Any]:
    """Write the body's lists as JSONL files (ids one a line) and run the update on them."""
    from skbsearch.index.live import stale_indexes
    from skbsearch.kb.generations import current
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
            out = update(skb_dir, **files).to_dict()
            gen = current(skb_dir)
            out["stale_indexes"] = stale_indexes(skb_dir, gen.lineage, gen.content_hash) if gen else []
            return out
        except InputError as e:
            where = Path(str(e.file)).stem if e.file is not None else None
            at = f"{where}[{e.line - 1}]" if where and e.line else (where or "body")
            raise InputError(f"{at}: {e.reason}", field=e.field) from None


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


def install_admin(app: Any, skb_dir: Path, token: str | None,
                  offload: Callable[[Callable[[], Any]], Awaitable[Any]],
                  reload: Callable[[], Any] = lambda: None) -> None:
    """Add ``POST /admin/update`` to ``app`` when ``token`` is set (else nothing); after a
    committed update, ``reload()`` moves the service to the new generation before answering."""
    if not token:
        return
    from fastapi import HTTPException, Request

    @app.post("/admin/update")
    async def admin_update(request: Request) -> dict[str, Any]:
        if not authorised(request.headers.get("authorization"), token):
            raise HTTPException(401, "admin token required", headers={"WWW-Authenticate": "Bearer"})
        try:
            body = json.loads(await request.body())
        except (ValueError, UnicodeDecodeError):
            raise HTTPException(422, "the body must be a JSON object") from None
        if not isinstance(body, dict):
            raise HTTPException(422, "the body must be a JSON object")
        def run() -> dict[str, Any]:
            result = apply_update(skb_dir, body)
            reload()
            return result

        try:
            return await offload(run)
        except InputError as e:
            raise HTTPException(422, str(e)[:500]) from None
