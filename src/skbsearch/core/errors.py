"""One exception hierarchy for the whole library.

Every error a user can cause says *where* (file, line, field) and *what to do*.
"""

from __future__ import annotations

from pathlib import Path


class SkbError(Exception):
    """Base class of every error skbsearch raises on purpose."""


class InputError(SkbError, ValueError):
    """Bad input data: malformed records, unknown ids, duplicates, wrong formats.

    Args:
        message: what is wrong and what to do about it.
        file: the file the bad record came from, if any.
        line: 1-based line (or record) number in that file, if known.
        field: the offending field name, if known.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.file = str(file) if file is not None else None
        self.line = line
        self.field = field
        self.reason = message
        where = []
        if self.file is not None:
            where.append(self.file if line is None else f"{self.file}:{line}")
        elif line is not None:
            where.append(f"record {line}")
        if field is not None:
            where.append(f"field '{field}'")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class ArtefactError(SkbError):
    """A missing, corrupt or incompatible index or store directory."""


class UntrustedFileError(SkbError):
    """Refusal to unpickle / torch.load a file without an explicit trust flag."""


class MissingDependencyError(SkbError, ImportError):
    """An optional dependency (an extra) is needed for this feature."""

    def __init__(self, package: str, extra: str, feature: str) -> None:
        super().__init__(
            f"{feature} needs the optional package '{package}'. "
            f"Install it with: pip install 'skbsearch[{extra}]'"
        )


class DeadlineExceeded(SkbError):
    """Work ran past its deadline (or was cancelled) and stopped (see :mod:`skbsearch.core.deadline`).

    Attributes:
        seconds: the time limit that was set, if any.
    """

    def __init__(self, seconds: float | None = None, reason: str = "ran past its time limit") -> None:
        self.seconds = seconds
        limit = f" of {seconds:g} s" if seconds is not None and "limit" in reason else ""
        super().__init__(f"the work {reason}{limit} and was stopped")
