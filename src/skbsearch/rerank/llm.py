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
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from skbsearch.core.paths import cache_root
from skbsearch.core.progress import ProgressFn
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import Context, SpecStage, is_stage_context
from skbsearch.core.types import Query, Run
from skbsearch.llm.cache import ResponseCache
from skbsearch.llm.client import get_client
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


@register_stage
class LLMReranker(SpecStage, PairwiseReranker):
    """STaRK's LLM re-ranker: a 0-1 satisfaction score per candidate (top 20 by default).

    On a GPU, serve the model with an OpenAI-compatible server and give its URL:
    ``vllm serve MODEL`` (``model='http://127.0.0.1:8000/v1'``, ``name='MODEL'``) or
    llama.cpp's ``llama-server -m MODEL.gguf -ngl 99`` (every layer offloaded to the GPU);
    the stage then runs no model itself, so it takes no ``device``.

    Re-scores each query's candidates with point-wise prompts. A
    :class:`~skbsearch.rerank.pairwise.PairwiseReranker`: candidates past ``top_k`` keep
    their order below the re-scored ones; prompts go to the client ``batch_size`` at a time.
    From a spec its client is the ``model`` parameter's (responses cached on disk unless
    ``cache=false``), documents the bound context's, ties kept in the retriever's order.

    Args:
        client: any :class:`skbsearch.llm.LLMClient` (or the stage context, from a spec).
        doc_text: maps a doc id to its text (a callable or a mapping).
        prompt: template with ``{query}``, ``{document}`` and ``{kind}``.
        tie_break: ``"none"`` (pure LLM scores) or ``"retriever"`` (ties keep the input order).
        batch_size: prompts per client call.
        params: ``top_k`` (re-rank only the top-k of the incoming run; others keep lower
            scores), ``kind`` (what a candidate is called in the prompt: "product",
            "passage"...; default ``"document"`` given a client), ``max_doc_chars``
            (truncate documents to fit small context windows), ``max_tokens``.
    """

    name = "llm"
    category = "reranker"
    short_name = "llm"

    @dataclass
    class Params:
        model: str = field(default="smollm2", metadata={
            "help": "smollm2 (packaged GGUF), a .gguf path, or an http(s):// OpenAI-compatible URL"})
        name: str = field(default="default", metadata={"help": "model name sent to an HTTP endpoint"})
        top_k: int = 20
        kind: str = field(default="node", metadata={"help": "what a candidate is called in the prompt"})
        max_doc_chars: int = 2000
        max_tokens: int = field(default=16, metadata={
            "help": "answer length; small models restate the prompt before the number"})
        cache: bool = field(default=True, metadata={"help": "cache responses on disk"})

    def __init__(
        self,
        client: Any = None,
        doc_text: Callable[[str], str] | Mapping[str, str] | None = None,
        *,
        prompt: str = STARK_PROMPT,
        tie_break: str = "none",
        batch_size: int = 64,
        progress: ProgressFn | None = None,
        **params: Any,
    ) -> None:
        if tie_break not in ("none", "retriever"):
            raise ValueError("tie_break must be 'none' or 'retriever'")
        from_spec = client is None or is_stage_context(client)
        if not from_spec:
            params.setdefault("kind", "document")
        SpecStage.__init__(self, client if from_spec else None, **params)
        PairwiseReranker.__init__(self, doc_text, top_k=self.params.top_k, batch_size=batch_size,
                                  progress=progress)
        self.prompt = prompt
        self.tie_break = tie_break
        self.unparsed = 0  # answers without a number (scored 0)
        self.scored = 0
        if not from_spec:
            self.client = client
            self._built = self

    def build(self, context: Context) -> Any:
        """The ``model`` parameter's client (responses cached unless ``cache=false``) over
        the context's node documents; ties keep the retriever's order."""
        p = self.params
        cache = ResponseCache(cache_root() / "llm" / "responses.sqlite") if p.cache else None
        self.client = get_client(p.model, model=p.name, cache=cache)
        self.doc_text = context.doc_text
        self.tie_break = "retriever"
        return self

    @property
    def kind(self) -> str:
        """What a candidate is called in the prompt."""
        return str(self.params.kind)

    @property
    def max_doc_chars(self) -> int:
        """Documents are cut to this many characters."""
        return int(self.params.max_doc_chars)

    @property
    def max_tokens(self) -> int:
        """Answer length."""
        return int(self.params.max_tokens)

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        return PairwiseReranker.__call__(self.inner, list(queries), run)

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
