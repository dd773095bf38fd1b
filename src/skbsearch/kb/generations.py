"""Commit points of a changing SKB: one small manifest per generation (Lucene's ``segments_N``).

An SKB directory starts as one base (the files ``skb kb build`` writes: generation 0, no
manifest). Each update adds an immutable delta *segment* under ``segments/`` and then commits
a new generation by writing ``generations/gen-NNNNNNNN.json`` (a temp file renamed into
place: the rename is the commit). A manifest names the base (``"."`` for the directory's own
files, or ``bases/base-NNNNNNNN`` after a compaction) and the segments in order, each with
its content hash. A reader opens the highest-numbered manifest and sees that generation
whole; parts that no kept manifest references are removed by :func:`collect_garbage`, only
while holding the writers' lock (so a writer between writing a segment and committing it is
never robbed).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from skbsearch.core.atomic import atomic_write_bytes
from skbsearch.core.errors import ArtefactError

GENERATIONS_DIR = "generations"
SEGMENTS_DIR = "segments"
BASES_DIR = "bases"
#: The writers' lock file of earlier versions (now the SKB directory itself is locked);
#: kept by the garbage collector, which never removes what an older writer may hold.
LOCK_FILE = ".lock"
#: How many of the newest manifests (and the parts they reference) are kept: the current
#: one and its predecessor, so a reader that opened the previous generation a moment ago
#: still finds its files.
KEEP = 2
#: Test-only hook: ``SKB_TEST_CRASH_STEP=OP:N`` kills the process (SIGKILL) at step ``N``
#: of an update or compaction (``OP`` = ``update`` or ``compact``); see :func:`crash_step`.
CRASH_STEP_ENV = "SKB_TEST_CRASH_STEP"
_GEN_FILE = re.compile(r"^gen-(\d{8})\.json$")
_PART = re.compile(r"^(seg|base)-(\d{8})$")


@dataclass
class Generation:
    """One commit point: the base and the delta segments (in order) it is made of.

    ``content_hash`` is the generation's identity: the previous generation's, chained with
    the new segment's hash on an update (:func:`chain_hash`), and unchanged by a compaction
    (the data is the same; only its layout is), so an index that covers the generation
    before a compaction covers the one after it too.
    """

    number: int
    base: str
    base_hash: str
    content_hash: str
    segments: list[dict[str, str]] = field(default_factory=list)
    lineage: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the manifest)."""
        return {"artefact": "skb-generation", **asdict(self)}


def chain_hash(previous: str, segment_hash: str) -> str:
    """The identity of a generation: a digest of the previous identity and the new segment's hash."""
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{previous}+{segment_hash}".encode())
    return h.hexdigest()


def crash_step(op: str, step: int) -> None:
    """Kill this process at step ``step`` of ``op`` when the test hook asks for it."""
    spec = os.environ.get(CRASH_STEP_ENV, "")
    if spec and spec == f"{op}:{step}":
        os.kill(os.getpid(), signal.SIGKILL)


def manifest_numbers(root: Path) -> list[int]:
    """Numbers of the committed manifests under ``root/generations`` (ascending)."""
    gdir = Path(root) / GENERATIONS_DIR
    if not gdir.is_dir():
        return []
    out = [int(m.group(1)) for p in gdir.iterdir() if (m := _GEN_FILE.match(p.name))]
    return sorted(out)


def newest_generation(root: str | Path) -> int:
    """The number of the newest committed generation (0 for a plain built SKB)."""
    nums = manifest_numbers(Path(root))
    return nums[-1] if nums else 0


def _manifest_path(root: Path, number: int) -> Path:
    return Path(root) / GENERATIONS_DIR / f"gen-{number:08d}.json"


def read_generation(root: Path, number: int) -> Generation:
    """Read one manifest; a damaged one raises :class:`ArtefactError`."""
    path = _manifest_path(root, number)
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
        gen = Generation(number=int(d["number"]), base=str(d["base"]), base_hash=str(d["base_hash"]),
                         content_hash=str(d["content_hash"]),
                         segments=[{"name": str(s["name"]), "content_hash": str(s["content_hash"])}
                                   for s in d["segments"]],
                         lineage=[str(x) for x in d.get("lineage", [])])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ArtefactError(f"{path}: corrupt generation manifest ({type(e).__name__}: {str(e)[:120]})") from None
    if gen.number != number or not _safe_part(gen.base) or not all(
            _PART.match(s["name"]) for s in gen.segments):
        raise ArtefactError(f"{path}: generation manifest names parts outside the SKB directory")
    return gen


def _safe_part(base: str) -> bool:
    if base == ".":
        return True
    head, _, name = base.partition("/")
    return head == BASES_DIR and bool(_PART.match(name)) and name.startswith("base-")


def current(root: str | Path) -> Generation | None:
    """The newest committed generation of ``root``, or ``None`` (a plain built SKB: generation 0)."""
    nums = manifest_numbers(Path(root))
    return read_generation(Path(root), nums[-1]) if nums else None


def commit(root: Path, gen: Generation, op: str, step: int) -> None:
    """Commit ``gen``: write its manifest to a temp file and rename it into place."""
    data = json.dumps(gen.to_dict(), indent=1).encode()
    path = _manifest_path(root, gen.number)
    if path.exists():
        raise ArtefactError(f"{path} exists: another writer committed generation {gen.number}")
    crash_step(op, step)  # before the manifest exists
    atomic_write_bytes(path, data)
    crash_step(op, step + 1)  # committed, not yet cleaned


@contextlib.contextmanager
def writer_lock(root: Path, *, blocking: bool = True) -> Iterator[bool]:
    """Hold the writers' lock of ``root`` (``flock`` on the SKB directory itself: released
    when the process dies, and nothing is created, so an update refused before its commit
    leaves a never-updated SKB as it was). Yields False when ``blocking`` is off and another
    writer holds it."""
    fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def collect_garbage(root: str | Path, *, locked: bool = False) -> list[Path]:
    """Remove manifests older than the :data:`KEEP` newest, parts none of those reference,
    and temp litter of dead writers. Without ``locked``, runs only if no writer is busy."""
    root = Path(root)
    if not any((root / d).is_dir() for d in (GENERATIONS_DIR, SEGMENTS_DIR, BASES_DIR)):
        return []  # never updated (a writer killed before its first commit leaves segments/)
    if not locked:
        with writer_lock(root, blocking=False) as got:
            return collect_garbage(root, locked=True) if got else []
    removed: list[Path] = []
    nums = manifest_numbers(root)
    kept: list[Generation] = []
    for n in reversed(nums):
        if len(kept) >= KEEP:
            break
        with contextlib.suppress(ArtefactError):
            kept.append(read_generation(root, n))
    keep_nums = {g.number for g in kept}
    refs = {g.base for g in kept} | {f"{SEGMENTS_DIR}/{s['name']}" for g in kept for s in g.segments}
    for n in nums:
        if n not in keep_nums and kept:
            removed.append(_manifest_path(root, n))
    for sub in (GENERATIONS_DIR, SEGMENTS_DIR, BASES_DIR):
        d = root / sub
        if not d.is_dir():
            continue
        for p in d.iterdir():
            if p.name == LOCK_FILE or _GEN_FILE.match(p.name):
                continue
            if p.name.startswith(".") or (_PART.match(p.name) and f"{sub}/{p.name}" not in refs):
                removed.append(p)  # temp litter (no writer is running), or an unreferenced part
    if kept and "." not in refs and (root / "nodes.parquet").exists():
        removed += [root / n for n in ("nodes.parquet", "nodes.arrow", "edges.parquet", "graph")]
    for p in removed:
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
    return removed


def next_part_name(root: Path, prefix: str) -> str:
    """A fresh ``seg-NNNNNNNN`` / ``base-NNNNNNNN`` name (one past every name in use)."""
    sub = SEGMENTS_DIR if prefix == "seg" else BASES_DIR
    used = [0] + manifest_numbers(root)
    d = Path(root) / sub
    if d.is_dir():
        used += [int(m.group(2)) for p in d.iterdir() if (m := _PART.match(p.name))]
    return f"{prefix}-{max(used) + 1:08d}"
