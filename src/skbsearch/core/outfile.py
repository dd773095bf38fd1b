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

Output directories: :func:`check_output_dir` (not inside an artefact, not an input or a
parent of one); whether an existing one may be replaced is
:func:`skbsearch.core.atomic.check_replaceable`'s part.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from skbsearch.core.atomic import artefact_kind, new_file_mode, recover_parent
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
) -> Path:
    """Refuse an output *directory* that is a file, lies inside an artefact directory, or is
    (or contains) one of ``inputs``; its real path. (Whether an existing directory may be
    replaced is :func:`skbsearch.core.atomic.check_replaceable`'s part, when it is written.)

    Raises:
        InputError: naming ``field``.
    """
    given = Path(path)
    if given.exists() and not given.is_dir():
        raise InputError("is a file; give a directory", file=given, field=field)
    real = given.resolve()
    _refuse_inside_artefact(given, real, field)
    for inp, ri in _resolved_inputs(inputs):
        if ri == real or real in ri.parents:
            what = "is" if ri == real else "contains"
            raise InputError(f"{what} an input of this command ({inp}); writing it could destroy "
                             "that input. Choose another output directory", file=given,
                             field=field)
    return real


def _resolved_inputs(inputs: Iterable[str | Path | None]) -> Iterator[tuple[str | Path, Path]]:
    """``(input, its real path)`` for each input that names a path (not ``None`` or ``-``)."""
    for inp in inputs:
        if inp is None or str(inp) == "-":
            continue
        yield inp, Path(inp).resolve()


def _refuse_inside_artefact(given: Path, real: Path, field: str | None) -> None:
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
