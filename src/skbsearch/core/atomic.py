"""Atomic directory writes: build in a temp sibling, then rename into place.

A crash or an exception while writing leaves the previous directory (if any) intact and
no half-written directory behind. Names used beside the final directory ``NAME``:

- ``.NAME.tmp-PID-XXXX``: the new version being written by process ``PID``;
- ``.NAME.old-PID-XXXX``: the previous version, moved away for the instant between the
  two renames that swap it for the new one.

A process killed between those two renames leaves no ``NAME``; :func:`recover_dir` then
moves the previous version back, and removes the litter of dead writers (entries whose
``PID`` is no longer alive, or older than a day; a live writer's are left alone).
:func:`recover_parent` does that for every name in a directory: every :func:`atomic_dir`
runs it on its parent, the loaders of SKBs and indexes on theirs, so a crashed build's
temp directory goes as soon as anything is built or opened beside it.

Replacing is guarded: an existing directory is replaced only when it is empty or is a
skbsearch artefact of the kind being written (:func:`artefact_kind`, which reads the
``"artefact"`` field of the kind's marker file and recognises older directories by their
fields) holding nothing but that kind's own entries (:data:`ARTEFACT_CONTENTS`: a user's
file inside an SKB is named and the directory kept), and never when it is or contains one
of the build's inputs (:func:`check_replaceable`; the guard lives in
:mod:`skbsearch.core.artefacts`). Entries named in ``keep`` (an SKB's ``indexes/``) are
carried over into the new version as hard links.

Output *files* are written by :mod:`skbsearch.core.outfile` (same temp naming, plus its checks).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import stat
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from skbsearch.core.artefacts import (  # noqa: F401 - re-exported: the guard's names
    ARTEFACT_CONTENTS,
    ARTEFACT_FIELD,
    ARTEFACT_MARKERS,
    ARTEFACT_NAME_PATTERNS,
    LITTER,
    artefact_kind,
    check_replaceable,
    foreign_entries,
)

#: Test-only hook: ``SKB_TEST_CRASH_AT=POINT[:NAME]`` kills the process (SIGKILL) at
#: ``POINT`` (``written``, ``between-renames``, ``renamed``) of :func:`atomic_dir`,
#: for the directory called ``NAME`` (any directory when omitted).
CRASH_ENV = "SKB_TEST_CRASH_AT"

#: Litter of a writer that is still alive is left alone unless older than this.
STALE_SECONDS = 24 * 3600


# ---------------------------------------------------------------------- crash recovery
def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _litter(final: Path) -> tuple[list[tuple[Path, int | None]], list[tuple[Path, int | None]]]:
    """``(old, tmp)`` entries beside ``final`` (with their writer's pid when known)."""
    name = re.escape(final.name)
    # ``-PID-XXXX`` (this version), ``-PID`` (old dirs) or ``-XXXXXXXX`` (tmp dirs) before.
    pat = re.compile(rf"^\.{name}\.(old|tmp)-(?:(\d+)(?:-[A-Za-z0-9_]+)?|[a-z0-9_]{{8}})$")
    old: list[tuple[Path, int | None]] = []
    tmp: list[tuple[Path, int | None]] = []
    try:
        entries = list(final.parent.iterdir())
    except OSError:
        return old, tmp
    for p in entries:
        m = pat.match(p.name)
        if m:
            (old if m.group(1) == "old" else tmp).append((p, int(m.group(2)) if m.group(2) else None))
    return old, tmp


def _abandoned(entry: Path, pid: int | None) -> bool:
    """Whether a writer's entry may be cleaned: its process is gone, or it is stale."""
    try:
        age = time.time() - entry.lstat().st_ctime
    except OSError:
        return False
    if pid is not None and not _pid_alive(pid):
        return True
    return age > STALE_SECONDS


def _remove(p: Path) -> None:
    if p.is_symlink() or p.is_file():
        with contextlib.suppress(OSError):
            p.unlink()
    else:
        shutil.rmtree(p, ignore_errors=True)


def recover_dir(path: str | Path) -> bool:
    """Repair what a killed :func:`atomic_dir` left beside ``path``.

    When ``path`` is missing and a dead writer's ``.NAME.old-*`` exists, move that
    previous version back to ``path``; remove dead writers' other ``.NAME.old-*`` and
    ``.NAME.tmp-*`` entries. Returns True when a previous version was restored.
    """
    final = Path(path).absolute()
    old, tmp = _litter(final)
    dead_old = [p for p, pid in old if _abandoned(p, pid)]
    restored = False
    if dead_old and not (final.exists() or final.is_symlink()):
        with contextlib.suppress(OSError):
            dead_old.sort(key=lambda p: p.lstat().st_ctime)
            os.rename(dead_old[-1], final)
            dead_old.pop()
            restored = True
    for p in dead_old + [p for p, pid in tmp if _abandoned(p, pid)]:
        _remove(p)
    return restored


def recover_parent(directory: str | Path) -> int:
    """:func:`recover_dir` for every name with a writer's litter in ``directory``: restores
    dead writers' previous versions and removes their temp entries (a live writer's are
    left alone). Cheap when there is none: one scan of the directory's names. Returns
    how many names had litter."""
    names = set()
    try:
        with os.scandir(directory) as it:
            for entry in it:
                if entry.name.startswith("."):
                    m = LITTER.match(entry.name)
                    if m:
                        names.add(m.group("name"))
    except OSError:
        return 0
    for name in sorted(names):
        recover_dir(Path(directory) / name)
    return len(names)


def _crash_point(point: str, final: Path) -> None:
    spec = os.environ.get(CRASH_ENV)
    if not spec:
        return
    where, _, name = spec.partition(":")
    if where == point and (not name or name == final.name):
        os.kill(os.getpid(), signal.SIGKILL)


def current_umask() -> int:
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# ---------------------------------------------------------------------- writing
@contextlib.contextmanager
def atomic_dir(
    path: str | Path,
    *,
    overwrite: bool = True,
    kind: str | None = None,
    inputs: Iterable[str | Path | None] = (),
    keep: Iterable[str] = (),
) -> Iterator[Path]:
    """Yield a temporary directory that replaces ``path`` when the block succeeds.

    Args:
        path: the final directory.
        overwrite: replace an existing directory (kept until the new one is complete).
        kind: the artefact kind written (``"skb"``, ``"index"``...): an existing ``path``
            is replaced only if it is empty or an artefact of this kind, and never when
            it is or contains one of ``inputs`` (see :func:`check_replaceable`).
            ``None`` skips these checks.
        inputs: the files or directories the new version is made from.
        keep: entries of the previous version (relative paths, e.g. ``"indexes"``) carried
            over into the new one when it lacks them, as hard links (copies where links
            fail) made before the swap: a crash at any point leaves them in one version.

    Raises:
        FileExistsError: if ``path`` exists and ``overwrite`` is false.
        InputError: if ``path`` may not be replaced.
    """
    final = Path(path).absolute()
    recover_parent(final.parent)  # this name's and its siblings' dead writers' litter
    if final.exists() and not overwrite:
        raise FileExistsError(f"{final} exists; pass overwrite=True (CLI: --force) to replace it")
    if kind is not None:
        check_replaceable(final, kind, inputs=inputs)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.tmp-{os.getpid()}-", dir=final.parent))
    try:
        os.chmod(tmp, 0o777 & ~current_umask())  # mkdtemp makes 0700; honour the umask like mkdir
        yield tmp
        _carry_over(final, tmp, keep)
        _crash_point("written", final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = None
    if final.exists() or final.is_symlink():
        old = final.parent / f".{final.name}.old-{os.getpid()}-{secrets.token_hex(4)}"
        os.replace(final, old)
        _crash_point("between-renames", final)
    try:
        os.replace(tmp, final)
    except BaseException:
        if old is not None:
            os.replace(old, final)
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if old is not None:
        _crash_point("renamed", final)
        _remove(old)


def _carry_over(final: Path, tmp: Path, keep: Iterable[str]) -> None:
    """Hard-link (or copy) each ``keep`` entry of the existing ``final`` into ``tmp``."""
    for rel in keep:
        src, dst = final / rel, tmp / rel
        if not src.exists() or dst.exists() or src.is_symlink():
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            try:
                shutil.copytree(src, dst, copy_function=os.link)
            except (OSError, shutil.Error):
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(src, dst)
        else:
            try:
                os.link(src, dst)
            except OSError:
                shutil.copy2(src, dst)


def new_file_mode(path: str | Path) -> int:
    """The mode a file written at ``path`` gets: the existing file's, else ``0o666 & ~umask``."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~current_umask()


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temp file in the same directory
    (``.NAME.tmp-PID-XXXX``) and ``os.replace``: readers see the old file or the new one,
    never a part. No checks: commands write their outputs through :mod:`skbsearch.core.outfile`."""
    final = Path(path)
    final.parent.mkdir(parents=True, exist_ok=True)
    mode = new_file_mode(final)
    fd, tmp = tempfile.mkstemp(prefix=f".{final.name}.tmp-{os.getpid()}-", dir=final.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
