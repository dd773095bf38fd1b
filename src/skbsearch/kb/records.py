"""An update given in Python (records, DataFrames, id lists) as the files ``skb kb update``
reads, so that it goes through exactly the same reader and checks.

``SKB.update(nodes=[{"id": "p9", "type": "product", "name": "..."}], delete_nodes=["p3"])``
writes each argument that is not already a path into a private temporary directory
(``nodes.jsonl``, ``edges.jsonl``, ``delete_nodes.txt``, ``delete_edges.jsonl``), calls
:func:`skbsearch.kb.update.update` with those paths, and turns an error about one of those
files into one about the argument and its record (``nodes= record 3, field 'id': ...``).
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.frames import is_frame

#: the arguments of an update and the file name each is written to
FILES = {"nodes": "nodes.jsonl", "edges": "edges.jsonl", "delete_nodes": "delete_nodes.txt",
         "delete_edges": "delete_edges.jsonl"}
EDGE_FIELDS = ("source", "relation", "target")


def _plain(value: Any) -> Any:
    """A JSON value from a record's value (numpy scalars and arrays become Python ones)."""
    if hasattr(value, "tolist") and callable(value.tolist):
        return value.tolist()
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    return value


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _records(arg: str, given: Any) -> Iterator[dict[str, Any]]:
    """Records of ``given``: a DataFrame's rows (missing cells dropped) or an iterable of
    mappings (edges also as ``(source, relation, target)`` tuples)."""
    rows: Iterable[Any] = given.to_dict("records") if is_frame(given) else given
    for i, rec in enumerate(rows, start=1):
        if arg.endswith("edges") and isinstance(rec, (tuple, list)) and len(rec) == 3:
            rec = dict(zip(EDGE_FIELDS, rec, strict=True))
        if not isinstance(rec, Mapping):
            raise InputError(f"{arg}= takes records (dicts), a DataFrame or a file path; record {i} is "
                             f"{type(rec).__name__}", line=i, field=arg)
        yield {str(k): _plain(v) for k, v in rec.items() if not _missing(v)}


def _ids(given: Any) -> Iterator[str]:
    """Node ids to delete: an iterable of ids, or a DataFrame's ``id`` column."""
    if is_frame(given):
        if "id" not in [str(c) for c in given.columns]:
            raise InputError("a DataFrame of node ids to delete needs an 'id' column", field="delete_nodes")
        given = given["id"].tolist()
    for i, nid in enumerate(given, start=1):
        text = str(_plain(nid))
        if not isinstance(_plain(nid), (str, int)) or isinstance(nid, bool) or not text.strip() or "\n" in text:
            raise InputError(f"node id {nid!r} to delete is not a one-line string or integer", line=i,
                             field="delete_nodes")
        yield text.strip()


def _write(path: Path, arg: str, given: Any) -> None:
    if isinstance(given, (str, bytes)) or not isinstance(given, Iterable) and not is_frame(given):
        raise InputError(f"{arg}= takes a file path, records (dicts) or a DataFrame; got "
                         f"{type(given).__name__}", field=arg)
    if arg == "delete_nodes":
        text = "".join(f"{nid}\n" for nid in _ids(given))
    else:
        try:
            text = "".join(json.dumps(rec, ensure_ascii=False, allow_nan=False) + "\n"
                           for rec in _records(arg, given))
        except (TypeError, ValueError) as e:
            raise InputError(f"{arg}= holds a value JSON cannot carry ({e})", field=arg) from None
    path.write_text(text, encoding="utf-8")


@contextmanager
def update_files(**given: Any) -> Iterator[Callable[..., Any]]:
    """Paths for every argument of an update (``nodes``, ``edges``, ``delete_nodes``,
    ``delete_edges``): a ``str``/``Path`` as is, anything else written to a temporary file;
    yields ``call(update_fn, root, **options)`` that runs ``update_fn`` on those paths with
    errors about the temporary files named by argument and record."""
    with tempfile.TemporaryDirectory(prefix="skb-update-") as tmp:
        paths: dict[str, Any] = {}
        written: dict[str, str] = {}
        for arg, value in given.items():
            if value is None or isinstance(value, (str, Path)):
                paths[arg] = value
                continue
            path = Path(tmp) / FILES[arg]
            _write(path, arg, value)
            paths[arg], written[str(path)] = path, arg

        def call(update_fn: Callable[..., Any], root: Any, **options: Any) -> Any:
            try:
                return update_fn(root, **paths, **options)
            except InputError as e:
                arg = written.get(e.file or "")
                if arg is None:
                    raise
                where = f"{arg}= record {e.line}" if e.line is not None else f"{arg}="
                raise InputError(f"{where}: {e.reason}", field=e.field) from None

        yield call
