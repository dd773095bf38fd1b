"""Point-wise LLM re-ranking, as STaRK's and G-RAG's LLM re-rankers do.

Each (query, candidate) pair gets a prompt asking for a relevance score; the number in the
answer (0–1 or 0–100, normalised to 0–1) becomes the candidate's score. LLM scores tie a
lot; tie-aware metrics (MTRR, TMHits) show it. ``tie_break="retriever"`` adds a tiny
rank-based term from the incoming run so that ties keep the retriever's order.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from skbsearch.core.progress import ProgressFn
from skbsearch.core.types import Query
from skbsearch.llm.client import LLMClient
from skbsearch.rerank.pairwise import PairwiseReranker

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


class LLMReranker(PairwiseReranker):
    """Re-score each query's candidates with an LLM (point-wise prompts).

    A :class:`~skbsearch.rerank.pairwise.PairwiseReranker`: candidates past ``top_k`` keep
    their order below the re-scored ones; prompts go to the client ``batch_size`` at a time.

    Args:
        client: any :class:`skbsearch.llm.LLMClient`.
        doc_text: maps a doc id to its text (a callable or a mapping).
        top_k: re-rank only the top-k of the incoming run (others keep lower scores).
        prompt: template with ``{query}``, ``{document}`` and ``{kind}``.
        kind: what a candidate is called in the prompt ("product", "passage", ...).
        max_doc_chars: truncate documents to fit small context windows.
        tie_break: ``"none"`` (pure LLM scores) or ``"retriever"`` (ties keep the input order).
        batch_size: prompts per client call.
    """

    name = "llm"

    def __init__(
        self,
        client: LLMClient,
        doc_text: Callable[[str], str] | Mapping[str, str],
        *,
        top_k: int = 20,
        prompt: str = STARK_PROMPT,
        kind: str = "document",
        max_doc_chars: int = 2000,
        max_tokens: int = 16,
        tie_break: str = "none",
        batch_size: int = 64,
        progress: ProgressFn | None = None,
    ) -> None:
        if tie_break not in ("none", "retriever"):
            raise ValueError("tie_break must be 'none' or 'retriever'")
        super().__init__(doc_text, top_k=top_k, batch_size=batch_size, progress=progress)
        self.client = client
        self.prompt = prompt
        self.kind = kind
        self.max_doc_chars = max_doc_chars
        self.max_tokens = max_tokens
        self.tie_break = tie_break
        self.unparsed = 0  # answers without a number (scored 0)
        self.scored = 0

    def render(self, query: Query, doc_id: str) -> tuple[str, str]:
        """The query and the document cut to ``max_doc_chars``."""
        text, doc = super().render(query, doc_id)
        return text, doc[: self.max_doc_chars]

    def score_pairs(self, query_texts: Sequence[str], doc_texts: Sequence[str],
                    contexts: Sequence[str] | None = None) -> np.ndarray:
        """One prompt a pair; the number in the answer (unparsed answers score 0)."""
        convs = [[{"role": "user", "content": self.prompt.format(query=q, document=d, kind=self.kind)}]
                 for q, d in zip(query_texts, doc_texts, strict=True)]
        out, missing = [], 0
        for ans in self.client.chat(convs, max_tokens=self.max_tokens):
            s = parse_score(ans)
            if s is None:
                missing += 1
                s = 0.0
            out.append(s)
        self.unparsed += missing
        self.scored += len(out)
        if missing * 10 > len(out):  # say so: a cut answer would silently rank by the first stage
            warnings.warn(f"LLM re-ranker: {missing} of {len(out)} answers had no score (scored 0); "
                          f"raise max_tokens (now {self.max_tokens}) or use a larger model",
                          RuntimeWarning, stacklevel=2)
        return np.asarray(out, dtype=np.float64)

    def adjust(self, scores: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        """With ``tie_break="retriever"``, ties keep the incoming order."""
        if self.tie_break != "retriever":
            return scores
        return scores.astype(np.float64) + 1e-6 * (self.top_k - ranks) / self.top_k

    def __repr__(self) -> str:
        return f"LLMReranker({self.client.model}, top_k={self.top_k})"
