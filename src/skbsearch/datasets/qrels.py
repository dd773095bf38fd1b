"""Read relevance judgements from any of the files users have: TREC qrels, JSON, or a query
file with an answers column (STaRK's ``id,query,answer_ids``)."""

from __future__ import annotations

import json
from pathlib import Path

from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels
from skbsearch.datasets.queries import ANSWER_FIELDS, read_qrels_from_answers


def qrels_format(path: str | Path) -> str:
    """``"trec"``, ``"json"`` (``{qid: {doc: grade}}``) or ``"answers"`` (a query file)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".csv", ".jsonl", ".ndjson"):
        return "answers"
    try:
        with path.open(encoding="utf-8-sig") as fh:
            head = fh.read(4096)
    except OSError as e:
        raise InputError(f"cannot read the qrels file: {e.strerror}", file=path) from None
    first = next((ln for ln in head.splitlines() if ln.strip()), "")
    if suffix == ".json" or first.lstrip().startswith("{"):
        try:
            data = json.loads(path.read_text(encoding="utf-8-sig"))
        except json.JSONDecodeError:
            return "answers"  # JSON Lines: one query object a line
        # {qid: {doc: grade}}; a one-line JSONL query file is a dict of strings and lists
        is_qrels = isinstance(data, dict) and all(isinstance(v, dict) for v in data.values())
        return "json" if is_qrels else "answers"
    cells = {c.strip().lower() for c in first.replace("\t", ",").split(",")}
    return "answers" if cells & set(ANSWER_FIELDS) else "trec"


def read_qrels(
    path: str | Path, *, id_field: str | None = None, answers_field: str | None = None
) -> Qrels:
    """Qrels from a TREC file (``qid iter docid grade``), JSON ``{qid: {docid: grade}}`` or
    a query file with answers (CSV / TSV with a header / JSONL; every answer grade 1)."""
    path = Path(path)
    if not path.is_file():
        raise InputError("qrels file not found", file=path)
    fmt = qrels_format(path)
    if fmt == "json":
        try:
            return Qrels.from_json(path)
        except InputError:
            raise
        except (TypeError, ValueError, AttributeError) as e:
            raise InputError(f"expected JSON {{qid: {{docid: grade}}}} with integer grades "
                             f"({e})", file=path) from None
    if fmt == "answers":
        return read_qrels_from_answers(path, id_field=id_field, answers_field=answers_field)
    return Qrels.from_trec(path)
