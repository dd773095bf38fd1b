"""Conventions every index directory follows, whatever its kind.

An index directory holds ``manifest.json``::

    {"artefact": "index", "kind": "bm25", "version": 1, "num_docs": 1000, "params": {...},
     "source": {"kind": "skb", "path": "...", "num_nodes": 1000, "skb_hash": "...", ...},
     "created": "2025-01-01T00:00:00+00:00",
     "built_on": {"device": "cuda:0", "dtype": "float16", "gpu": "NVIDIA H100", "torch": "2.11.0"}}

plus ``doc_ids.json`` (the external id of every document, in index order) and whatever
files the kind needs. Directories are written with :func:`skbsearch.core.atomic.atomic_dir`
(a temp sibling renamed into place), so a crash never leaves a half-written index; every
problem found while loading raises :class:`skbsearch.core.errors.ArtefactError` naming the file
and saying how to rebuild.

``created`` is the only field that differs between two builds of the same input (it
is ``$SOURCE_DATE_EPOCH`` when that is set). ``source.skb_hash`` is the SKB's
``content_hash`` at build time: :func:`check_index_matches` refuses to use an index with
an SKB rebuilt since.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shlex
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from skbsearch.core.atomic import recover_parent
from skbsearch.core.devices import cpu_record
from skbsearch.core.errors import ArtefactError
from skbsearch.core.progress import ProgressFn, no_progress  # noqa: F401 - re-exported (index modules)

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

MANIFEST_FILE = "manifest.json"
DOC_IDS_FILE = "doc_ids.json"



class IndexRecord(Protocol):
    """What is known of an index without its arrays: a loaded index or its
    :class:`Manifest` (what :func:`check_index_matches` and the kind registry read)."""

    @property
    def kind(self) -> str:
        """The registered kind (``bm25``, ``dense``, ``multivector``, ...)."""

    @property
    def source(self) -> dict[str, Any]:
        """What it was built from (``kind: skb``, ``num_nodes``, ``skb_hash``, ...)."""

    @property
    def params(self) -> dict[str, Any]:
        """Its build parameters, as saved in the manifest."""


class Index(IndexRecord, Protocol):
    """A loaded index of a registered kind (:class:`~skbsearch.index.sparse.BM25Index`,
    :class:`~skbsearch.index.dense.DenseIndex`,
    :class:`~skbsearch.index.multivector.MultiVectorIndex`): what the life cycle in
    :mod:`skbsearch.index` (open, catch up, check, save) uses of it. Kinds may also offer
    ``warm()`` (load query kernels) and ``share_node_ids(skb)``."""

    @property
    def path(self) -> Path | None:
        """The directory it was loaded from or saved to (``None``: in memory only)."""

    @property
    def doc_ids(self) -> list[str]:
        """Document (node) ids in index order."""

    def save(self, path: str | Path, *, overwrite: bool = True) -> Path:
        """Write it to ``path`` (temp directory, then an atomic switch); returns the path."""


@dataclass
class Manifest:
    """What an index directory holds: its kind, format version, size and build parameters."""

    kind: str
    version: int
    num_docs: int
    params: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Any] = field(default_factory=dict)
    created: str = ""
    built_on: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``built_on``: the device record, the CPU unless a model ran
        elsewhere; see :mod:`skbsearch.core.devices`)."""
        d = {"artefact": "index", **asdict(self)}
        if not d["created"]:
            d["created"] = build_time()
        if not d["built_on"]:
            d["built_on"] = cpu_record()
        return d


def build_time() -> str:
    """Now (or ``$SOURCE_DATE_EPOCH``, for reproducible builds) as ISO 8601 UTC seconds."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    when = (_dt.datetime.fromtimestamp(int(epoch), _dt.UTC) if epoch.isdigit()
            else _dt.datetime.now(_dt.UTC))
    return when.isoformat(timespec="seconds")


def rebuild_hint(kind: str) -> str:
    """The advice to print when an index cannot be used."""
    return f"rebuild it with 'skb index SKB_DIR --kind {kind} --force'"


def build_hint(kind: str, skb_dir: str | Path = "SKB_DIR", out: str | Path | None = None) -> str:
    """The advice to print when an index was never built."""
    where = f" --out {shlex.quote(str(out))}" if out is not None else ""
    return f"build it with 'skb index {shlex.quote(str(skb_dir))} --kind {kind}{where}'"


def write_manifest(directory: Path, manifest: Manifest) -> None:
    """Write ``manifest.json`` into ``directory`` (normally a temp dir inside ``atomic_dir``)."""
    (Path(directory) / MANIFEST_FILE).write_text(
        json.dumps(manifest.to_dict(), indent=2), encoding="utf-8"
    )


def read_manifest(
    directory: str | Path, kind: str | None = None, version: int | None = None
) -> Manifest:
    """Read and check ``manifest.json``.

    Args:
        directory: the index directory.
        kind: if given, the kind the caller expects.
        version: if given, the only supported format version.

    Raises:
        ArtefactError: missing or corrupt manifest, wrong kind or version.
    """
    directory = Path(directory)
    path = directory / MANIFEST_FILE
    # a build killed while swapping directories (or any dead writer's litter beside it)
    recover_parent(directory.absolute().parent)
    if not directory.is_dir():
        raise ArtefactError(f"{directory}: no such index directory; {build_hint(kind or 'bm25')}")
    if not path.is_file():
        raise ArtefactError(f"{directory} is not an index directory (no {MANIFEST_FILE}); "
                          f"{build_hint(kind or 'bm25')}")
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ArtefactError(f"{path}:{e.lineno}: corrupt manifest ({e.msg}); "
                          f"{rebuild_hint(kind or 'bm25')}") from None
    try:
        m = Manifest(
            kind=str(d["kind"]),
            version=int(d["version"]),
            num_docs=int(d["num_docs"]),
            params=dict(d.get("params", {})),
            source=dict(d.get("source", {})),
            created=str(d.get("created", "")),
            built_on=dict(d.get("built_on") or {}),
        )
    except (KeyError, TypeError, ValueError) as e:
        raise ArtefactError(f"{path}: manifest lacks or mangles {e}; "
                          f"{rebuild_hint(kind or 'bm25')}") from None
    if kind is not None and m.kind != kind:
        raise ArtefactError(f"{directory} holds a '{m.kind}' index, not '{kind}'")
    if version is not None and m.version != version:
        raise ArtefactError(f"{directory}: {m.kind} index format version {m.version} is not "
                          f"supported (expected {version}); {rebuild_hint(m.kind)}")
    return m


def write_doc_ids(directory: Path, doc_ids: Sequence[str]) -> None:
    """Write ``doc_ids.json`` (a JSON list of strings, index order)."""
    (Path(directory) / DOC_IDS_FILE).write_text(
        json.dumps(list(doc_ids), ensure_ascii=False), encoding="utf-8"
    )


def read_doc_ids(directory: str | Path, expected: int, kind: str) -> list[str]:
    """Read ``doc_ids.json`` and check it has ``expected`` entries."""
    path = Path(directory) / DOC_IDS_FILE
    if not path.is_file():
        raise ArtefactError(f"{path} is missing; {rebuild_hint(kind)}")
    try:
        ids = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ArtefactError(f"{path}:{e.lineno}: corrupt doc ids ({e.msg}); {rebuild_hint(kind)}") from None
    if not isinstance(ids, list) or len(ids) != expected:
        n = len(ids) if isinstance(ids, list) else "no"
        raise ArtefactError(f"{path}: {n} doc ids for {expected} documents; {rebuild_hint(kind)}")
    return [str(x) for x in ids]


_CLI_DEFAULTS = {"k1": 1.5, "b": 0.75, "method": "lucene", "stemmer": "english",
                 "encoder": "minilm", "backend": "numpy"}


def rebuild_command(kind: str, skb_dir: str | Path, index_dir: str | Path | None,
                    source: dict[str, Any], params: dict[str, Any]) -> str:
    """The ``skb index`` command that rebuilds an index with its recorded settings."""
    q = shlex.quote
    cmd = ["skb", "index", q(str(skb_dir)), "--kind", kind]
    if index_dir is not None and Path(index_dir).absolute() != (
            Path(skb_dir) / "indexes" / kind).absolute():
        cmd += ["--out", q(str(index_dir))]
    if source.get("fields"):
        cmd += ["--fields", q(",".join(source["fields"]))]
    weights = params.get("field_weights") or {}
    if source.get("fields") and any(float(w) != 1.0 for w in weights.values()):
        cmd += ["--field-weights", q(",".join(f"{f}={w:g}" for f, w in weights.items()))]
    if source.get("add_rel"):
        cmd.append("--add-rel")
    if source.get("rel_weight") is not None and float(source["rel_weight"]) != 1.0:
        cmd += ["--rel-weight", f"{float(source['rel_weight']):g}"]
    if kind == "bm25" and params.get("combine", "sum") != "sum":
        cmd += ["--combine", q(str(params["combine"]))]
    if kind == "bm25" and params.get("field_b"):
        cmd += ["--field-b", q(",".join(f"{f}={float(v):g}" for f, v in params["field_b"].items()))]
    options = {"bm25": ("k1", "b", "method", "stemmer"), "dense": ("encoder", "backend")}
    for name in options.get(kind, ("encoder",)):
        value = params.get(name)
        if value is not None and value != _CLI_DEFAULTS[name]:
            cmd += [f"--{name}", q(str(value))]
    return " ".join(cmd + ["--force"])


def _short(digest: Any) -> str:
    return str(digest)[:12] if digest else "unrecorded"


class IndexMismatch(ArtefactError):
    """An index built from another SKB (or from this SKB before it was rebuilt)."""


def check_index_matches(index: IndexRecord, skb: SKB | None) -> None:
    """Refuse (:class:`IndexMismatch`, an ArtefactError) to use ``index`` with an SKB other than the one it was built from.

    Args:
        index: a loaded index or its :class:`Manifest` (anything with ``source``; a
            loaded index also gives its ``path``, ``params`` and ``kind``).
        skb: the :class:`skbsearch.kb.SKB` the caller pairs it with.

    Compares what the manifest's ``source`` records (``num_nodes``, ``skb_hash``) with
    ``skb``'s node count and ``content_hash``; fields missing on either side (indexes
    over plain texts, SKBs never saved, directories from older versions) are not compared.
    The error names the exact ``skb index`` command that rebuilds the index. Callers
    open indexes with :func:`skbsearch.index.open_index`, which calls this.
    """
    source = dict(getattr(index, "source", None) or {})
    if source.get("kind") != "skb" or skb is None:
        return
    meta = getattr(skb, "meta", None) or {}
    n_now, h_now = int(skb.num_nodes), meta.get("content_hash")
    n_then, h_then = source.get("num_nodes"), source.get("skb_hash")
    if (n_then is None or int(n_then) == n_now) and (not h_then or not h_now or h_then == h_now):
        return
    kind = str(getattr(index, "kind", None) or "bm25")
    params = dict(getattr(index, "params", None) or {})
    index_dir = getattr(index, "path", None)
    skb_dir = getattr(skb, "path", None) or source.get("path") or "SKB_DIR"
    raise IndexMismatch(
        f"{index_dir or 'the index'}: this {kind} index was built from a different SKB than "
        f"{skb_dir} (index: {n_then} nodes, content {_short(h_then)}; SKB: {n_now} nodes, "
        f"content {_short(h_now)}), so its results would be wrong; rebuild it with "
        f"'{rebuild_command(kind, skb_dir, index_dir, source, params)}'"
    )
