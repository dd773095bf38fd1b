"""Query-set statistics as STaRK reports them (Wu et al., NeurIPS 2024, Sec. 2.5, Table 4,
Appendix B): query length in words, answers per query, Shannon entropy of the word
distribution, H = −Σ p(w) log2 p(w), and type-token ratio, TTR = V / N.

Both are computed over the **whole query set** (all queries' tokens pooled), not per query.
Which tokenisation reproduces the published numbers was found by experiment on the
official ``stark_qa.csv`` files (Amazon / MAG / Prime):

============================================ ======================= ======================
tokenisation                                 entropy (bits)          TTR
============================================ ======================= ======================
published (Table 4)                          10.39 / 10.25 / 9.63    0.179 / 0.180 / 0.143
whitespace split, case kept (``whitespace``) 10.391 / 10.252 / 9.635 0.110 / 0.115 / 0.086
… minus NLTK English stopwords (for TTR)     12.096 / 11.922 / 11.209 0.1786 / 0.1791 / 0.1409
lowercased whitespace (``lower``)            10.152 / 10.048 / 9.565 0.096 / 0.102 / 0.082
``\\w+`` words, lowercased (``words``)       9.637 / 9.614 / 9.296   0.056 / 0.058 / 0.054
============================================ ======================= ======================

So the default (``tokenizer="whitespace"``, ``ttr_stopwords="nltk"``) is: entropy over
whitespace tokens with case and punctuation kept (matches to 3 decimals), TTR over the same
tokens after dropping NLTK's 179 English stopwords (compared case-insensitively; within
0.002 of the paper). ``ttr_all`` (TTR without removing stopwords) is reported as well.
Query length (words) is the number of whitespace tokens.
"""

from __future__ import annotations

import csv
import json
import math
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from skbsearch.core.errors import InputError

#: NLTK's classic English stopword list (179 words; ``nltk.corpus.stopwords.words("english")``).
NLTK_STOPWORDS = frozenset(
    """i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
    yourselves he him his himself she she's her hers herself it it's its itself they them
    their theirs themselves what which who whom this that that'll these those am is are was
    were be been being have has had having do does did doing a an the and but if or because
    as until while of at by for with about against between into through during before after
    above below to from up down in out on off over under again further then once here there
    when where why how all any both each few more most other some such no nor not only own
    same so than too very s t can will just don don't should should've now d ll m o re ve y
    ain aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven
    haven't isn isn't ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn
    shouldn't wasn wasn't weren weren't won won't wouldn wouldn't""".split()
)

_WORDS = re.compile(r"\w+")
TOKENIZERS: dict[str, Callable[[str], list[str]]] = {
    "whitespace": str.split,
    "lower": lambda s: s.lower().split(),
    "words": lambda s: _WORDS.findall(s.lower()),
}
STOPWORD_LISTS: dict[str, frozenset[str]] = {"nltk": NLTK_STOPWORDS, "none": frozenset()}


def shannon_entropy(tokens: Iterable[str]) -> float:
    """Entropy in bits of the token frequency distribution (0.0 for no tokens)."""
    counts = Counter(tokens)
    n = sum(counts.values())
    return -sum(c / n * math.log2(c / n) for c in counts.values()) if n else 0.0


def type_token_ratio(tokens: Iterable[str]) -> float:
    """Distinct tokens / tokens (0.0 for no tokens)."""
    toks = list(tokens)
    return len(set(toks)) / len(toks) if toks else 0.0


@dataclass(frozen=True)
class QueryStats:
    """Statistics of one query set (see the module docstring for the definitions)."""

    n_queries: int
    n_tokens: int
    n_types: int
    query_length_mean: float
    query_length_median: float
    query_length_max: int
    answers_mean: float | None
    answers_median: float | None
    answers_max: int | None
    entropy: float
    ttr: float
    ttr_all: float
    tokenizer: str
    ttr_stopwords: str

    def to_dict(self) -> dict:
        """A JSON-ready dict."""
        return asdict(self)


def query_set_stats(
    queries: Sequence[str],
    answers: Sequence[Sequence[object]] | None = None,
    tokenizer: str = "whitespace",
    ttr_stopwords: str = "nltk",
) -> QueryStats:
    """STaRK Table-4 statistics of ``queries`` (and answer counts, when ``answers`` given).

    Args:
        queries: the query texts.
        answers: per query, its answer ids (same order), or None.
        tokenizer: ``"whitespace"`` (default, reproduces STaRK), ``"lower"`` or ``"words"``.
        ttr_stopwords: ``"nltk"`` (default, reproduces STaRK) or ``"none"``: stopwords left
            out of the TTR only (matched case-insensitively).
    """
    if tokenizer not in TOKENIZERS:
        raise InputError(f"unknown tokenizer {tokenizer!r}; use one of {sorted(TOKENIZERS)}")
    if ttr_stopwords not in STOPWORD_LISTS:
        raise InputError(
            f"unknown stopword list {ttr_stopwords!r}; use one of {sorted(STOPWORD_LISTS)}"
        )
    tok = TOKENIZERS[tokenizer]
    stop = STOPWORD_LISTS[ttr_stopwords]
    tokens = [t for q in queries for t in tok(q)]
    lengths = [len(q.split()) for q in queries] or [0]
    n_answers = [len(a) for a in answers] if answers is not None else None
    return QueryStats(
        n_queries=len(queries),
        n_tokens=len(tokens),
        n_types=len(set(tokens)),
        query_length_mean=float(statistics.fmean(lengths)),
        query_length_median=float(statistics.median(lengths)),
        query_length_max=max(lengths),
        answers_mean=float(statistics.fmean(n_answers)) if n_answers else None,
        answers_median=float(statistics.median(n_answers)) if n_answers else None,
        answers_max=max(n_answers) if n_answers else None,
        entropy=shannon_entropy(tokens),
        ttr=type_token_ratio(t for t in tokens if t.lower() not in stop),
        ttr_all=type_token_ratio(tokens),
        tokenizer=tokenizer,
        ttr_stopwords=ttr_stopwords,
    )


def read_query_csv(
    path: str | Path, query_field: str = "query", answers_field: str | None = "answer_ids"
) -> tuple[list[str], list[list[object]] | None]:
    """Read a STaRK-style CSV (``id,query,answer_ids``; answers a JSON list such as "[1, 2]").

    Returns the queries and, when the answers column exists, the answer lists.
    """
    path = Path(path)
    queries: list[str] = []
    answers: list[list[object]] = []
    reader: csv.DictReader | None = None
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            fields = reader.fieldnames or []
            if query_field not in fields:
                raise InputError(
                    f"no '{query_field}' column (columns: {fields}); give the file a header row "
                    "with a query column, or name it with --query-column",
                    file=path,
                    line=1,
                    field=query_field,
                )
            has_answers = answers_field is not None and answers_field in fields
            for row in reader:
                queries.append(row[query_field] or "")
                if has_answers:
                    answers.append(_parse_answers(row[answers_field], path, reader.line_num, answers_field))
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text ({e.reason}); expected a CSV file", file=path) from None
    except csv.Error as e:
        raise InputError(f"malformed CSV ({e})", file=path, line=reader.line_num if reader else None) from None
    return queries, (answers if has_answers else None)


def _parse_answers(value: str | None, path: Path, line: int, field: str) -> list[object]:
    value = (value or "").strip()
    if not value:
        return []
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):  # not JSON (or absurdly long / deeply nested)
        parsed = [v.strip() for v in value.strip("[]").split(",") if v.strip()]
    if not isinstance(parsed, list):
        raise InputError(
            f"expected a list of answer ids, got {value[:40]!r}", file=path, line=line, field=field
        )
    return parsed


def query_file_stats(
    path: str | Path,
    tokenizer: str = "whitespace",
    ttr_stopwords: str = "nltk",
    query_field: str = "query",
) -> QueryStats:
    """:func:`query_set_stats` of a STaRK-style CSV file (queries in column ``query_field``)."""
    queries, answers = read_query_csv(path, query_field)
    return query_set_stats(queries, answers, tokenizer=tokenizer, ttr_stopwords=ttr_stopwords)
