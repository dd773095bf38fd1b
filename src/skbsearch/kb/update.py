"""Change an SKB by id without rebuilding it: upserts and deletions as one new generation.

:func:`update` reads the same record formats as ``skb kb build`` (JSONL or CSV nodes and
edges, through the same loaders and checks), validates everything against the current
generation (a bad record is an :class:`InputError` naming file, line and field, and nothing
is written), writes one delta segment and commits a new generation. :func:`compact` folds the
base and its segments into a new base, also as a new generation. Both hold the SKB's writer
lock (:func:`skbsearch.kb.generations.writer_lock`), so writers never interleave; readers
never wait (they open the newest committed generation).

Semantics: within one update, deletions apply first (``delete_nodes`` removes the nodes and
every edge touching them; ``delete_edges`` removes every copy of each ``(source, relation,
target)``), then ``nodes`` are upserted (an existing id is replaced whole: type, name, fields
and attributes; its edges stay) and ``edges`` added.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from skbsearch.core.deadline import check_deadline
from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.core.lines import iter_lines, require_file
from skbsearch.kb.arrays import positions, take_rows
from skbsearch.kb.builder import SKBBuilder
from skbsearch.kb.generations import (
    BASES_DIR,
    SEGMENTS_DIR,
    Generation,
    chain_hash,
    collect_garbage,
    commit,
    crash_step,
    current,
    next_part_name,
    writer_lock,
)
from skbsearch.kb.loaders import load as load_source
from skbsearch.kb.loaders.files import read_edge_file
from skbsearch.kb.loaders.jsonl import iter_jsonl
from skbsearch.kb.loaders.tabular import iter_csv
from skbsearch.kb.segments import EDGE_SCHEMA, Segment, write_segment
from skbsearch.kb.store import SKB

PathLike = str | Path
Triple = tuple[str, str, str]


@dataclass
class UpdateResult:
    """What an update or compaction committed."""

    generation: int
    content_hash: str
    upserted: int = 0
    deleted_nodes: int = 0
    added_edges: int = 0
    deleted_edges: int = 0
    segments: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return dict(self.__dict__)


# ---------------------------------------------------------------------- reading inputs
def read_edges(path: PathLike) -> Iterator[tuple[Triple, str, int]]:
    """``((source, relation, target), file, line)`` per edge record (JSONL, CSV or TSV, as
    ``skb kb build`` reads them, with the same checks)."""
    path = Path(path)
    if not path.is_file():
        raise InputError("edges file not found", file=path)
    file, check = str(path), SKBBuilder()
    for ln, s, r, t in read_edge_file(path):
        check.add_edge(s, r, t, file=file, line=ln)  # the builder's checks (e.g. '^-1')
        yield (str(s), r, str(t)), file, ln


def read_ids(path: PathLike) -> list[tuple[str, int]]:
    """``(id, line)`` per non-empty line of a file of node ids.

    Ids are data: a line is split from the next at ``\n`` only and nothing else is removed
    (a leading or trailing space is part of the id; a bare ``\r`` inside a line too). Empty
    lines are skipped; a line ending in ``\r`` (a ``\r\n`` file) is refused, naming the
    line, rather than guessed at.

    Raises:
        InputError: the path is not a file, a line is not UTF-8, ends in ``\r`` or is over
            :data:`skbsearch.core.lines.MAX_LINE_BYTES`.
    """
    path = require_file(path, "file of node ids")
    out = []
    for ln, raw in iter_lines(path):
        raw = raw.removesuffix(b"\n")
        if not raw:
            continue
        if raw.endswith(b"\r"):
            raise InputError("ends in a carriage return (\\r\\n line ends?): ids are matched "
                             "exactly, one a line separated by \\n; convert the file to \\n line "
                             "ends", file=path, line=ln, field="id")
        try:
            out.append((raw.decode("utf-8"), ln))
        except UnicodeDecodeError as e:
            raise InputError(f"not UTF-8 text ({e.reason})", file=path, line=ln, field="id") from None
    return out


def _kind(arrow_type: str) -> str:
    if arrow_type == "bool":
        return "a bool attribute"
    if arrow_type.startswith(("int", "uint", "double", "float", "halffloat")):
        return "a number attribute"
    return "a string attribute"


def _line_of(path: Path, node_id: str) -> int | None:
    rows = iter_jsonl(path) if path.suffix.lower() in (".jsonl", ".ndjson") else iter_csv(path)
    for ln, rec in rows:
        if str(rec.get("id", "")) == node_id:
            return ln
    return None


def _read_nodes(skb: SKB, path: Path, attributes: Iterable[str], default_type: str | None) -> SKB:
    """The upserted nodes as a small SKB (the loaders' checks), kinds checked against ``skb``."""
    if not path.is_file():
        raise InputError("nodes file not found", file=path)
    fmt = "jsonl" if path.suffix.lower() in (".jsonl", ".ndjson") else "csv"
    attrs = set(attributes)
    if fmt == "jsonl":
        attrs |= {a for a, t in skb.schema.attributes.items() if _kind(t) == "a string attribute"}
    else:
        header = next(iter_csv(path), (0, {}))[1]
        attrs |= {a for a in skb.schema.attributes if a in header}
    new = load_source(None, fmt, nodes=path, attributes=tuple(sorted(attrs)), default_type=default_type)
    for col in new.schema.text_fields + list(new.schema.attributes):
        was = ("text" if col in skb.schema.text_fields else
               _kind(skb.schema.attributes[col]) if col in skb.schema.attributes else None)
        now = "text" if col in new.schema.text_fields else _kind(new.schema.attributes[col])
        if was is not None and was != now:
            nid = next(i for i, v in zip(new.ids, new.column(col), strict=True) if v is not None)
            raise InputError(f"'{col}' is {now if now != 'text' else 'a text field'} here but the SKB "
                             f"has it as {was if was != 'text' else 'a text field'}; give the column "
                             "the same kind", file=path, line=_line_of(path, nid), field=col)
    return new


def _edge_keys(skb: SKB) -> np.ndarray:
    n = max(skb.num_nodes, 1)
    return (skb.edge_src.astype(np.int64) * n + skb.edge_dst) * 65536 + skb.edge_rel


def read_update(skb: SKB, *, nodes: PathLike | None = None, edges: PathLike | None = None,
                delete_nodes: PathLike | None = None, delete_edges: PathLike | None = None,
                attributes: Iterable[str] = (), default_type: str | None = None) -> Segment:
    """Read and validate one update against ``skb`` (the current generation) as a segment."""
    ids_arr = skb.nodes.column("id").combine_chunks()
    dels = read_ids(delete_nodes) if delete_nodes is not None else []
    triples = list(read_edges(delete_edges)) if delete_edges is not None else []
    new = (_read_nodes(skb, Path(nodes), attributes, default_type) if nodes is not None else None)
    added = list(read_edges(edges)) if edges is not None else []
    # every id the update names, matched against the SKB's in one hash join
    named = sorted({*(d for d, _ in dels), *(x for (s, _, t), _, _ in [*triples, *added] for x in (s, t)),
                    *(new.ids if new is not None else [])})
    row_of = dict(zip(named, positions(named, ids_arr).tolist(), strict=True)) if named else {}
    rows = np.array([row_of[d] for d, _ in dels], np.int64)
    for (nid, ln), r in zip(dels, rows, strict=True):
        if r < 0:
            raise InputError(f"no node with id {nid!r} to delete", file=delete_nodes, line=ln, field="id")
    deleted = list(dict.fromkeys(d for d, _ in dels))
    del_edges: list[Triple] = []
    if triples:
        keys = set(_edge_keys(skb).tolist())
        rel_code = {r: i for i, r in enumerate(skb.schema.relations)}
        for (s, r, t), f, ln in triples:
            a, b = row_of[s], row_of[t]
            key = (a * max(skb.num_nodes, 1) + b) * 65536 + rel_code.get(r, -1)
            if a < 0 or b < 0 or r not in rel_code or key not in keys:
                raise InputError(f"no edge {s!r} -{r}-> {t!r} to delete", file=f, line=ln, field="source")
        del_edges = list(dict.fromkeys(t for t, _, _ in triples))
    new_ids = set(new.ids) if new is not None else set()
    clash = new_ids & set(deleted)
    if clash and nodes is not None:  # (upserted ids come from ``nodes``)
        nid = sorted(clash)[0]
        raise InputError(f"node {nid!r} is both deleted and upserted in one update; do one or the "
                         "other", file=nodes, line=_line_of(Path(nodes), nid), field="id")
    if added:
        dead = set(deleted)
        for (s, r, t), f, ln in added:
            for fld, nid, j in (("source", s, row_of[s]), ("target", t, row_of[t])):
                if nid not in new_ids and (j < 0 or nid in dead):
                    raise InputError(f"edge {s!r} -{r}-> {t!r} points to unknown node {nid!r}; "
                                     "add the node in this update or fix the id", file=f, line=ln, field=fld)
    affected = _affected(skb, row_of, new, rows, del_edges, [t for t, _, _ in added])
    edge_table = pa.table({"src": [e[0][0] for e in added], "relation": [e[0][1] for e in added],
                           "dst": [e[0][2] for e in added]}, schema=EDGE_SCHEMA)
    empty = SKB.from_columns([], [], [])
    node_table = new.nodes if new is not None else empty.nodes
    return Segment(nodes=node_table, edges=edge_table, deleted_nodes=deleted, deleted_edges=del_edges,
                   text_fields=list(new.schema.text_fields) if new is not None else [],
                   affected=affected)


def _affected(skb: SKB, row_of: dict[str, int], new: SKB | None, deleted_rows: np.ndarray,
              del_edges: list[Triple], added: list[Triple]) -> list[str]:
    """Ids whose relation lines the update changes (see :attr:`Segment.affected`): the
    current neighbours (both directions) of renamed and deleted nodes, and both ends of
    every added or deleted edge (a replaced node's own document is re-read anyway)."""
    out: set[str] = set()
    for s, _, t in [*del_edges, *added]:
        out.update((s, t))
    renamed = np.zeros(0, np.int64)
    if new is not None and new.num_nodes:
        rows = np.array([row_of[i] for i in new.ids], np.int64)
        hit = np.flatnonzero(rows >= 0)
        old = take_rows(skb.nodes.column("name"), rows[hit]).to_pylist()
        now = new.nodes.column("name").take(hit).to_pylist()
        # a neighbour's relation lines show the node's name (its id when it has none)
        renamed = rows[hit][[(a or new.ids[i]) != (b or new.ids[i]) for i, a, b in zip(hit.tolist(), old, now,
                                                                                      strict=True)]]
    seeds = np.unique(np.concatenate([renamed, np.asarray(deleted_rows, np.int64)]))
    if len(seeds) and skb.num_edges:
        nb = skb.graph.neighbor_set(seeds, None, "both")
        out.update(take_rows(skb.nodes.column("id"), np.asarray(nb, np.int64)).to_pylist())
    return sorted(out)


# ---------------------------------------------------------------------- committing
def _generation_of(root: Path, skb: SKB) -> Generation:
    gen = current(root)
    if gen is not None:
        return gen
    h = skb.meta.get("content_hash")
    if not h:
        raise ArtefactError(f"{root}: meta.json has no content_hash (an SKB from an older version); "
                          "rebuild it with 'skb kb build' before updating it")
    return Generation(number=0, base=".", base_hash=str(h), content_hash=str(h), lineage=[str(h)])


def update(root: PathLike, *, nodes: PathLike | None = None, edges: PathLike | None = None,
           delete_nodes: PathLike | None = None, delete_edges: PathLike | None = None,
           attributes: Iterable[str] = (), default_type: str | None = None,
           previous: SKB | None = None) -> UpdateResult:
    """Apply one update to the SKB directory ``root`` as a new generation (see the module
    docstring); an update that changes nothing commits nothing. ``previous``: a generation of
    ``root`` in memory (a server's), from which the current one is opened where it can be
    (:func:`skbsearch.kb.live_next.read_after`), not merged from every segment again."""
    root = Path(root)
    with writer_lock(_checked(root)):
        skb = SKB.load(root, previous=previous)
        seg = read_update(skb, nodes=nodes, edges=edges, delete_nodes=delete_nodes,
                          delete_edges=delete_edges, attributes=attributes, default_type=default_type)
        gen = _generation_of(root, skb)
        result = UpdateResult(gen.number, gen.content_hash, seg.nodes.num_rows, len(seg.deleted_nodes),
                              seg.edges.num_rows, len(seg.deleted_edges), [s["name"] for s in gen.segments])
        if seg.is_empty:
            return result
        crash_step("update", 1)
        name = next_part_name(root, "seg")
        digest = write_segment(root / SEGMENTS_DIR / name, seg)
        crash_step("update", 2)
        identity = chain_hash(gen.content_hash, digest)
        new = Generation(number=gen.number + 1, base=gen.base, base_hash=gen.base_hash,
                         content_hash=identity,
                         segments=[*gen.segments, {"name": name, "content_hash": digest}],
                         lineage=[*gen.lineage, identity])
        check_deadline()  # a deadline stops an update before its commit point, never after
        commit(root, new, "update", 3)
        collect_garbage(root, locked=True)
        crash_step("update", 5)
    result.generation, result.content_hash = new.number, new.content_hash
    result.segments = [s["name"] for s in new.segments]
    return result


def compact(root: PathLike, *, before_commit: Callable[[SKB], None] | None = None) -> UpdateResult:
    """Fold the base and its segments into a new base (``bases/base-N``), committed as a new
    generation with the same identity (``content_hash``): the data is unchanged.

    ``before_commit(skb)`` runs with the merged SKB before the commit (the CLI rewrites the
    indexes there, so that they never lag behind a committed compaction).
    """
    root = Path(root)
    with writer_lock(_checked(root)):
        skb = SKB.load(root)
        gen = _generation_of(root, skb)
        if not gen.segments:
            return UpdateResult(gen.number, gen.content_hash)
        crash_step("compact", 1)
        name = next_part_name(root, "base")
        base_dir = root / BASES_DIR / name
        skb.save(base_dir, overwrite=False)
        crash_step("compact", 2)
        if before_commit is not None:
            before_commit(SKB.load(root))
        base_hash = str(SKB.load(base_dir).meta["content_hash"])
        new = Generation(number=gen.number + 1, base=f"{BASES_DIR}/{name}", base_hash=base_hash,
                         content_hash=gen.content_hash, segments=[], lineage=[gen.content_hash])
        commit(root, new, "compact", 3)
        collect_garbage(root, locked=True)
        crash_step("compact", 5)
    return UpdateResult(new.number, new.content_hash)


def _checked(root: Path) -> Path:
    if not (root / "meta.json").is_file():
        raise InputError(f"{root} is not an SKB directory (no meta.json); build one with 'skb kb build'",
                         file=root)
    return root
