"""Output files: never clobber an input or an artefact, always written whole.

Every command and library writer that writes a *file* (a TREC run, a CSV or LaTeX table,
a plot, a JSON result) goes through this module:

- :func:`check_output_file` refuses (:class:`InputError`) a path that is a directory, is
  one of the command's inputs (the same path once symlinks are resolved, or the same
  inode: a hard link), or lies inside a skbsearch artefact directory (an SKB, an index, a
  model...: :func:`skbsearch.core.atomic.artefact_kind`), which skbsearch reads and replaces
  whole;
- :func:`output_file` and :func:`write_output` write a temp file in the same directory
  (``.NAME.tmp-PID-XXXX``, the litter :func:`skbsearch.core.atomic.recover_parent` removes
  once its writer is dead) and ``os.replace`` it over ``path``: a failed or killed run
  leaves the previous file or none, never a 0-byte or half-written one. A symlinked
  output is written at its target (the link stays).

Output directories: :func:`check_output_dir`, the one check every command that writes a
directory (``kb build``, ``index``, ``fit``, ``synth``, ``train``) makes before any work: not
a file, not inside an artefact, not an input or a parent of one, and (given the kind it
writes) not an existing directory that is neither empty nor that kind of artefact.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from skbsearch.core.atomic import artefact_kind, check_replaceable, new_file_mode, recover_parent
from skbsearch.core.errors import InputError

_WHAT = {"skb": "an SKB directory", "index": "an index directory",
         "catalogue": "a synthetic catalogue", "cross-encoder-model": "a saved cross-encoder"}


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_output_file(
    path: str | Path,
    *,
    inputs: Iterable[str | Path | None] = (),
    field: str | None = None,
) -> Path:
    """Refuse to write the file ``path`` when that would destroy something; its real path.

    Args:
        path: the output file.
        inputs: the files and directories the command reads (``None`` entries are skipped).
        field: the option that named ``path`` (for the error message).

    Raises:
        InputError: ``path`` is a directory, is one of ``inputs`` (same path or same
            inode), or lies inside an artefact directory.
    """
    given = Path(path)
    if given.is_dir():
        raise InputError("is a directory; give a file name (e.g. DIR/out.trec)",
                         file=given, field=field)
    real = given.resolve()
    _refuse_inside_artefact(given, real, field)
    for inp, ri in _resolved_inputs(inputs):
        if ri == real or _same_file(ri, real):
            raise InputError(f"is also an input of this command ({inp}); writing it would "
                             "destroy that input. Choose another output file (nothing was "
                             "written)", file=given, field=field)
    return real


def check_output_dir(
    path: str | Path,
    *,
    inputs: Iterable[str | Path | None] = (),
    field: str | None = None,
    kind: str | None = None,
    force: bool | None = None,
) -> Path:
    """The one check of a command's output *directory*, made before any work; its real path.

    Refused (:class:`InputError` naming ``field``, nothing written):

    - a path that exists and is not a directory;
    - a path inside an artefact directory (an SKB, an index, a model...), except an index
      written into the ``indexes/`` of the SKB it indexes (``SKB/indexes/NAME``, where
      ``skb index`` puts it);
    - one of ``inputs``, or a parent of one;
    - with ``kind`` (the artefact the command writes): an existing directory that is not
      empty and is not an artefact of that kind holding only its own entries
      (:func:`skbsearch.core.atomic.check_replaceable`);
    - with ``force=False``: an existing non-empty directory (``--force`` replaces it).
    """
    given = Path(path)
    if given.exists() and not given.is_dir():
        raise InputError("is a file; give a directory", file=given, field=field)
    real = given.resolve()
    resolved = list(_resolved_inputs(inputs))
    own_skb = {ri for _, ri in resolved} if kind == "index" else set()
    _refuse_inside_artefact(given, real, field, own_skb=own_skb)
    for inp, ri in resolved:
        if ri == real or real in ri.parents:
            what = "is" if ri == real else "contains"
            raise InputError(f"{what} the input {inp} of this command; writing it could destroy "
                             "that input. Choose another output directory (nothing was written)",
                             file=given, field=field)
    if kind is not None:
        try:
            check_replaceable(given, kind, inputs=[ri for _, ri in resolved])
        except InputError as e:
            raise InputError(e.reason, file=e.file, field=field) from None
    if force is False and real.is_dir() and any(real.iterdir()):
        raise InputError("exists; pass --force to replace it", file=given, field=field)
    return real


def _resolved_inputs(inputs: Iterable[str | Path | None]) -> Iterator[tuple[str | Path, Path]]:
    """``(input, its real path)`` for each input that names a path (not ``None`` or ``-``)."""
    for inp in inputs:
        if inp is None or str(inp) == "-":
            continue
        yield inp, Path(inp).resolve()


def _refuse_inside_artefact(given: Path, real: Path, field: str | None,
                            own_skb: set[Path] | frozenset[Path] = frozenset()) -> None:
    """Refuse ``real`` inside an artefact; ``SKB/indexes/NAME`` of an SKB in ``own_skb`` (the
    SKB an index is built from) is that SKB's own index slot, and allowed."""
    if real.parent.name == "indexes" and real.parent.parent in own_skb \
            and artefact_kind(real.parent.parent) == "skb":
        return
    for parent in real.parents:
        kind = artefact_kind(parent)
        if kind is not None:
            what = _WHAT.get(kind, f"a skbsearch {kind} directory")
            raise InputError(f"lies inside {what} ({parent}), which skbsearch reads and replaces "
                             "whole; write outputs outside it (nothing was written)",
                             file=given, field=field)


@contextlib.contextmanager
def output_file(
    path: str | Path,
    *,
    inputs: Iterable[str | Path | None] = (),
    field: str | None = None,
) -> Iterator[Path]:
    """Yield a temp path to write; it replaces ``path`` when the block succeeds.

    ``path`` is checked first (:func:`check_output_file`); on any exception the temp file
    is removed and the previous ``path`` (if any) is left as it was.
    """
    final = check_output_file(path, inputs=inputs, field=field)
    final.parent.mkdir(parents=True, exist_ok=True)
    recover_parent(final.parent)
    mode = new_file_mode(final)
    fd, name = tempfile.mkstemp(prefix=f".{final.name}.tmp-{os.getpid()}-", dir=final.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, mode)
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def write_output(
    path: str | Path,
    data: str | bytes,
    *,
    inputs: Iterable[str | Path | None] = (),
    field: str | None = None,
) -> Path:
    """Write ``data`` (text is UTF-8 encoded) to the file ``path`` through :func:`output_file`;
    returns ``path`` as a :class:`Path`."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with output_file(path, inputs=inputs, field=field) as tmp:
        tmp.write_bytes(raw)
    return Path(path)
