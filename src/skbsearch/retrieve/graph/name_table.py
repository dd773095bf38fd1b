"""Name dictionaries of the entity linker: ``name -> node indices``, built with Arrow kernels
and persisted memory-mapped beside the SKB's indexes.

A 1M-node SKB has ~1M distinct names: a Python dict of them costs ~10 s to build (with
normalisation) and ~100 MB in every process. :class:`NameTable` instead holds

- the distinct keys as an Arrow string array (``keys.arrow``, memory-mapped),
- a 64-bit hash of each key, sorted, with the key's number (``hash.npy``, ``code.npy``),
- the nodes of every key as CSR (``indptr.npy``, ``nodes.npy``),

so a look-up is a hash, a binary search and one string comparison, and opening the table
reads nothing. :func:`load_or_build_name_tables` keeps the linker's two tables (exact names
and :func:`normalise` d names) in ``SKB_DIR/indexes/linker`` (written atomically, checked
against the SKB's content hash like every index) and builds them only when missing or stale.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from skbsearch.core.atomic import atomic_dir
from skbsearch.core.errors import ArtefactError, SkbError
from skbsearch.index import open_index
from skbsearch.index.base import Manifest, read_manifest, write_manifest

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

_NON_ALNUM = re.compile(r"[^0-9a-z]+")

#: Directory name under ``SKB_DIR/indexes/``.
LINKER_DIR = "linker"
KIND = "linker"
FORMAT_VERSION = 1
_TABLES = ("exact", "norm")

_MASK = (1 << 64) - 1
_P = 0x100000001B3  # odd multiplier of the polynomial hash
_M1, _M2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB  # splitmix64 finaliser


def normalise(text: str) -> str:
    """Lower-case, strip accents, punctuation to spaces, collapse whitespace."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return " ".join(_NON_ALNUM.sub(" ", text).split())


def normalise_array(names: pa.Array | pa.ChunkedArray) -> pa.Array:
    """:func:`normalise` of every string of an Arrow array (nulls stay null): Arrow kernels
    for ASCII strings (most names), :func:`normalise` itself for the others."""
    if isinstance(names, pa.ChunkedArray):
        names = names.combine_chunks()
    if names.type != pa.string():
        names = names.cast(pa.string())
    out = pc.ascii_trim(pc.replace_substring_regex(pc.ascii_lower(names), pattern="[^0-9a-z]+",
                                                   replacement=" "), characters=" ")
    ascii_ = pc.fill_null(pc.string_is_ascii(names), True).to_numpy(zero_copy_only=False)
    other = np.flatnonzero(~ascii_)
    if not len(other):
        return out
    values = out.to_pylist()
    for i, name in zip(other.tolist(), names.take(pa.array(other)).to_pylist(), strict=True):
        values[i] = normalise(name)
    return pa.array(values, type=pa.string())


def _finalise(h: Any, n: Any) -> Any:
    """splitmix64 of ``h ^ n`` (Python ints masked to 64 bits, or numpy uint64 arrays)."""
    if isinstance(h, np.ndarray):
        z = h ^ n
        z = (z ^ (z >> np.uint64(30))) * np.uint64(_M1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(_M2)
        return z ^ (z >> np.uint64(31))
    z = (h ^ n) & _MASK
    z = ((z ^ (z >> 30)) * _M1) & _MASK
    z = ((z ^ (z >> 27)) * _M2) & _MASK
    return z ^ (z >> 31)


def key_hash(key: str) -> int:
    """The 64-bit hash of one key: ``sum(byte_i * P**i)`` over its UTF-8 bytes, finalised."""
    h, p = 0, 1
    data = key.encode("utf-8")
    for b in data:
        h = (h + b * p) & _MASK
        p = (p * _P) & _MASK
    return _finalise(h, len(data))


def hash_array(keys: pa.Array) -> np.ndarray:
    """:func:`key_hash` of every (non-empty, non-null) string of ``keys``, vectorised."""
    n = len(keys)
    if n == 0:
        return np.zeros(0, np.uint64)
    if keys.type != pa.string():
        keys = keys.cast(pa.string())
    offsets = np.frombuffer(keys.buffers()[1], dtype=np.int32)[keys.offset:keys.offset + n + 1].astype(np.int64)
    data = np.frombuffer(keys.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]]
    starts = offsets[:-1] - offsets[0]
    lengths = np.diff(offsets)
    if (lengths <= 0).any():
        raise ValueError("hash_array needs non-empty strings")
    pos = np.arange(len(data), dtype=np.int64) - np.repeat(starts, lengths)
    powers = np.ones(int(lengths.max()), dtype=np.uint64)
    if len(powers) > 1:
        powers[1:] = _P
        powers = np.cumprod(powers, dtype=np.uint64)  # wraps modulo 2**64
    contrib = data.astype(np.uint64) * powers[pos]
    h = np.add.reduceat(contrib, starts)
    return _finalise(h.astype(np.uint64), lengths.astype(np.uint64))


class NameTable:
    """A read-only ``key -> node indices`` map (see the module docstring).

    Build one with :meth:`build` from one string per node, or :meth:`load` a saved one.
    """

    def __init__(self, keys: pa.Array, hashes: np.ndarray, codes: np.ndarray,
                 indptr: np.ndarray, nodes: np.ndarray) -> None:
        self.keys = keys
        self._hash = hashes
        self._code = codes
        self._indptr = indptr
        self._nodes = nodes

    @classmethod
    def build(cls, names: pa.Array | pa.ChunkedArray, allowed: np.ndarray | None = None) -> NameTable:
        """One entry per node (``names[i]`` names node ``i``); nulls, empty strings and nodes
        not ``allowed`` are left out."""
        if isinstance(names, pa.ChunkedArray):
            names = names.combine_chunks()
        keep = pc.fill_null(pc.and_(pc.is_valid(names), pc.not_equal(names, "")), False)
        keep = keep.to_numpy(zero_copy_only=False)
        if allowed is not None:
            keep &= np.asarray(allowed, dtype=bool)
        rows = np.flatnonzero(keep)
        enc = pc.dictionary_encode(names.take(pa.array(rows)))
        if isinstance(enc, pa.ChunkedArray):
            enc = enc.combine_chunks()
        keys = enc.dictionary
        codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        order = np.argsort(codes, kind="stable")
        indptr = np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum(np.bincount(codes, minlength=len(keys)), out=indptr[1:])
        h = hash_array(keys)
        by_hash = np.argsort(h, kind="stable")
        return cls(keys, h[by_hash], by_hash.astype(np.int64), indptr, rows[order].astype(np.int64))

    def rekeyed(self, keys: pa.Array, num_nodes: int) -> NameTable:
        """The same nodes under new keys: ``keys[c]`` replaces key ``c`` (null: its nodes
        are left out); keys that fall together merge their nodes."""
        code_of_node = np.full(num_nodes, -1, np.int64)
        code_of_node[self._nodes] = np.repeat(np.arange(len(self.keys), dtype=np.int64), np.diff(self._indptr))
        has = code_of_node >= 0
        per_node = keys.take(pa.array(np.where(has, code_of_node, 0), mask=~has))
        return NameTable.build(per_node)

    def get(self, key: str, default: Sequence[int] = ()) -> Sequence[int]:
        """Node indices of ``key`` (increasing), or ``default``."""
        c = self._find(key)
        if c < 0:
            return default
        return self._nodes[self._indptr[c]:self._indptr[c + 1]].tolist()

    def _find(self, key: str) -> int:
        if not key:
            return -1
        h = np.uint64(key_hash(key))
        i = int(np.searchsorted(self._hash, h))
        while i < len(self._hash) and self._hash[i] == h:
            c = int(self._code[i])
            if self.keys[c].as_py() == key:
                return c
            i += 1
        return -1

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._find(key) >= 0

    def __len__(self) -> int:
        return len(self.keys)

    def max_tokens(self) -> int:
        """The most space-separated tokens in a key (at least 1)."""
        if not len(self.keys):
            return 1
        return int(pc.max(pc.count_substring(self.keys, " ")).as_py()) + 1

    # ------------------------------------------------------------------ persistence
    def write(self, directory: Path, stem: str) -> None:
        """Write the table's files ``{stem}.*`` into ``directory``."""
        table = pa.table({"key": self.keys})
        with pa.OSFile(str(directory / f"{stem}.keys.arrow"), "wb") as sink, \
                pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
        for part, arr in (("hash", self._hash), ("code", self._code), ("indptr", self._indptr),
                          ("nodes", self._nodes)):
            np.save(directory / f"{stem}.{part}.npy", arr, allow_pickle=False)

    @classmethod
    def read(cls, directory: Path, stem: str, num_nodes: int) -> NameTable:
        """Open ``{stem}.*`` of ``directory`` memory-mapped, checking the arrays agree."""
        where = f"{directory} ({stem})"
        try:
            keys = pa.ipc.open_file(pa.memory_map(str(directory / f"{stem}.keys.arrow"), "r")) \
                .read_all().column("key").combine_chunks()
            arrs = {part: np.load(directory / f"{stem}.{part}.npy", mmap_mode="r", allow_pickle=False)
                    for part in ("hash", "code", "indptr", "nodes")}
        except (OSError, ValueError, KeyError, EOFError, pa.ArrowException) as e:
            raise ArtefactError(f"{where}: damaged name table ({str(e)[:200]})") from None
        k = len(keys)
        ok = (len(arrs["hash"]) == k == len(arrs["code"]) and len(arrs["indptr"]) == k + 1
              and arrs["hash"].dtype == np.uint64 and arrs["code"].dtype.kind == "i"
              and arrs["indptr"].dtype.kind == "i" and arrs["nodes"].dtype.kind == "i"
              and (k == 0 or (int(arrs["indptr"][0]) == 0 and int(arrs["indptr"][-1]) == len(arrs["nodes"])))
              and (k == 0 or (0 <= int(arrs["code"].min()) and int(arrs["code"].max()) < k))
              and (len(arrs["nodes"]) == 0 or (0 <= int(arrs["nodes"].min())
                                               and int(arrs["nodes"].max()) < num_nodes)))
        if not ok:
            raise ArtefactError(f"{where}: name table arrays do not agree")
        return cls(keys, arrs["hash"], arrs["code"], arrs["indptr"], arrs["nodes"])


#: the fewest words (function words aside) of a name whose initials are an acronym of it
MIN_ACRONYM_WORDS = 3


def initials_array(names: pa.Array | pa.ChunkedArray, skip: frozenset[str] = frozenset(),
                   *, normalised: bool = False) -> pa.Array:
    """The acronym of every name: the first letters of its :func:`normalise` d words but the
    words in ``skip`` (function words: "north atlantic treaty organization" -> ``nato``,
    "federal bureau of investigation" -> ``fbi``); null for names of fewer than
    :data:`MIN_ACRONYM_WORDS` such words (two letters name too many things to be read as
    one). ``normalised``: the names are :func:`normalise` d already. Arrow kernels
    throughout: no Python loop over the names."""
    norm = names if normalised else normalise_array(names)
    if isinstance(norm, pa.ChunkedArray):
        norm = norm.combine_chunks()
    words = pc.split_pattern(norm, " ")
    parent = pc.list_parent_indices(words).to_numpy(zero_copy_only=False).astype(np.int64)
    flat = pc.list_flatten(words)
    keep = pc.invert(pc.fill_null(pc.is_in(flat, value_set=pa.array(sorted(skip), pa.string())), False))
    keep = pc.and_(keep, pc.greater(pc.utf8_length(flat), 0)).to_numpy(zero_copy_only=False)
    firsts = pc.utf8_slice_codeunits(flat.filter(pa.array(keep)), 0, 1)
    owner = parent[keep]
    counts = np.bincount(owner, minlength=len(norm))
    offsets = np.zeros(len(norm) + 1, np.int32)
    np.cumsum(counts, out=offsets[1:])
    joined = pc.binary_join(pa.ListArray.from_arrays(pa.array(offsets), firsts), "")
    return pc.if_else(pa.array(counts >= MIN_ACRONYM_WORDS), joined, pa.scalar(None, pa.string()))


def acronym_table(norm: NameTable, num_nodes: int, skip: frozenset[str] = frozenset()) -> NameTable:
    """``acronym -> nodes`` from a table of :func:`normalise` d names (the linker's ``norm``
    table: its distinct names' :func:`initials_array`, ``skip`` words left out)."""
    return norm.rekeyed(initials_array(norm.keys, skip, normalised=True), num_nodes)


def build_name_tables(skb: SKB, allowed: np.ndarray | None = None) -> tuple[NameTable, NameTable, int]:
    """The linker's tables of ``skb``: exact names, normalised names, and the most tokens in
    a normalised name."""
    names = skb.nodes.column("name").combine_chunks()
    if names.type != pa.string():
        names = names.cast(pa.string())
    exact = NameTable.build(names, allowed)
    norm = NameTable.build(normalise_array(names), allowed)
    return exact, norm, norm.max_tokens()


def load_or_build_name_tables(skb: SKB, directory: Path | None = None,
                              notify: Callable[[str], None] | None = None
                              ) -> tuple[NameTable, NameTable, int]:
    """:func:`build_name_tables` of every node, loaded from ``directory`` (default
    ``SKB_DIR/indexes/linker``) when it is there and matches the SKB, else built and saved."""
    if directory is None and skb.path is not None:
        directory = Path(skb.path) / "indexes" / LINKER_DIR
    if directory is not None and (directory / "manifest.json").is_file():
        try:
            m = read_manifest(directory, kind=KIND, version=FORMAT_VERSION)
            open_index(m, skb, follow=False, warm=False)  # built from this SKB, or refused
            if m.num_docs != skb.num_nodes:
                raise ArtefactError(f"{directory}: built for {m.num_docs} nodes, the SKB has {skb.num_nodes}")
            tables = [NameTable.read(directory, t, skb.num_nodes) for t in _TABLES]
            return tables[0], tables[1], (int(m.params["max_tokens"]) if "max_tokens" in m.params
                                         else tables[1].max_tokens())  # (not .get: eager default)
        except SkbError as e:
            if notify is not None:
                notify(f"note: rebuilding the linker's name tables at {directory} ({e})")
    exact, norm, longest = build_name_tables(skb)
    if directory is not None:
        try:
            with atomic_dir(directory, overwrite=True, kind="index") as tmp:
                exact.write(tmp, "exact")
                norm.write(tmp, "norm")
                source = {"kind": "skb", "path": str(Path(skb.path).absolute()) if skb.path else None,
                          "num_nodes": int(skb.num_nodes),
                          "skb_hash": (skb.meta or {}).get("content_hash"), "role": "linker"}
                write_manifest(tmp, Manifest(KIND, FORMAT_VERSION, int(skb.num_nodes),
                                             {"max_tokens": longest}, source))
        except (OSError, SkbError) as e:
            if notify is not None:
                notify(f"note: could not save the linker's name tables to {directory} ({e}); "
                       "they are rebuilt in every process")
    return exact, norm, longest
