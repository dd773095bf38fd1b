"""Point-wise LLM re-ranking, as STaRK's and G-RAG's LLM re-rankers do.

Each (query, candidate) pair gets a prompt asking for a relevance score; the number in the
answer (0–1 or 0–100, normalised to 0–1) becomes the candidate's score. LLM scores tie a
lot; tie-aware metrics (MTRR, TMHits) show it. ``tie_break="retriever"`` adds a tiny
rank-based term from the incoming run so that ties keep the retriever's order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from skbsearch.llm.client import LLMClient
from skbsearch.pipeline import StageBase
from skbsearch.types import Query, Run

STARK_PROMPT = (
    "You are a helpful assistant that examines if a {kind} satisfies a given query and assigns "
    "a score from 0.0 to 1.0. If the {kind} does not satisfy the query, the score should be 0.0. "
    "If there exists explicit and strong evidence supporting that the {kind} satisfies the query, "
    "the score should be 1.0. If partial or weak evidence exists, the score should be between "
    "0.0 and 1.0.\n"
    'Here is the query:\n"{query}"\n'
    "Here is the information about the {kind}:\n{document}\n\n"
    "Please score the {kind} based on how well it satisfies the query. ONLY output the floating "
    "point score WITHOUT anything else.\nOutput: The numeric score of this {kind} is: "
)

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def parse_score(text: str, scale: float = 1.0) -> float | None:
    """The first number in ``text`` divided by ``scale`` and clipped to [0, 1]; None if absent.

    With ``scale=1`` a value above 1 is read as a 0–100 score (so "85" -> 0.85).
    """
    m = _NUMBER.search(text)
    if m is None:
        return None
    v = float(m.group())
    if scale == 1.0 and 1.0 < v <= 100.0:
        v /= 100.0
    else:
        v /= scale
    return min(max(v, 0.0), 1.0)


class LLMReranker(StageBase):
    """Re-score each query's candidates with an LLM (point-wise prompts).

    Args:
        client: any :class:`skbsearch.llm.LLMClient`.
        doc_text: maps a doc id to its text (a callable or a mapping).
        top_k: re-rank only the top-k of the incoming run (others keep lower scores).
        prompt: template with ``{query}``, ``{document}`` and ``{kind}``.
        kind: what a candidate is called in the prompt ("product", "passage", ...).
        max_doc_chars: truncate documents to fit small context windows.
        tie_break: ``"none"`` (pure LLM scores) or ``"retriever"`` (ties keep the input order).
    """

    def __init__(
        self,
        client: LLMClient,
        doc_text: Callable[[str], str] | Mapping[str, str],
        *,
        top_k: int = 20,
        prompt: str = STARK_PROMPT,
        kind: str = "document",
        max_doc_chars: int = 2000,
        max_tokens: int = 8,
        tie_break: str = "none",
    ) -> None:
        if tie_break not in ("none", "retriever"):
            raise ValueError("tie_break must be 'none' or 'retriever'")
        self.client = client
        self.doc_text = doc_text.__getitem__ if isinstance(doc_text, Mapping) else doc_text
        self.top_k = top_k
        self.prompt = prompt
        self.kind = kind
        self.max_doc_chars = max_doc_chars
        self.max_tokens = max_tokens
        self.tie_break = tie_break
        self.unparsed = 0

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        if run is None:
            raise ValueError("LLMReranker re-ranks a run: put a retriever before it")
        jobs: list[tuple[str, str, int]] = []
        convs = []
        for q in queries:
            for rank, (doc, _) in enumerate(run.ranked(q.id)[: self.top_k]):
                text = self.doc_text(doc)[: self.max_doc_chars]
                content = self.prompt.format(query=q.text, document=text, kind=self.kind)
                convs.append([{"role": "user", "content": content}])
                jobs.append((q.id, doc, rank))
        answers = self.client.chat(convs, max_tokens=self.max_tokens)
        out = Run(name=f"{run.name}>>llm")
        for (qid, doc, rank), ans in zip(jobs, answers, strict=True):
            s = parse_score(ans)
            if s is None:
                self.unparsed += 1
                s = 0.0
            if self.tie_break == "retriever":
                s += 1e-6 * (self.top_k - rank) / self.top_k
            out.setdefault(qid, {})[doc] = s
        # Candidates beyond top_k keep their order, below every re-ranked one.
        for q in queries:
            rest = run.ranked(q.id)[self.top_k :]
            for i, (doc, _) in enumerate(rest):
                out.setdefault(q.id, {})[doc] = -1.0 - i
        return out

    def __repr__(self) -> str:
        return f"LLMReranker({self.client.model}, top_k={self.top_k})"
