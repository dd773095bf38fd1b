"""STaRK-style query synthesis on any SKB (Wu et al., NeurIPS 2024, §2.4).

Four steps, seeded:

1. **Relational requirement**: a relation template (a metapath to the target type, from
   a file or discovered, :mod:`~skbsearch.synth.queries.templates`) grounded with a sampled
   anchor gives the candidate set.
2. **Textual properties** of a gold answer sampled from the candidates: STaRK's extraction
   prompt with an LLM (:mod:`~skbsearch.synth.queries.llm`), else the deterministic
   extractor of :mod:`~skbsearch.synth.queries.properties`.
3. **Fusion** into a natural query: the LLM's generate-then-rephrase, else role-specific
   sentence templates (:mod:`~skbsearch.synth.queries.text`).
4. **Filtering**: every other candidate is checked against every property (LLM True/False
   or the lexical proxy); the answers are the gold plus the candidates passing all checks.

Without an LLM the same seed gives byte-identical output. The result is written in
STaRK's QA layout by :mod:`skbsearch.synth.queries.report`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.kb.schema import inverse
from skbsearch.kb.store import SKB
from skbsearch.llm.client import LLMClient
from skbsearch.synth.queries import llm as L
from skbsearch.synth.queries.properties import (
    DEFAULT_SPACY_MODEL,
    Property,
    PropertyExtractor,
    content_words,
    load_spacy,
)
from skbsearch.synth.queries.templates import (
    GroundedTemplate,
    RelationTemplate,
    article,
    candidates,
    default_targets,
    discover_templates,
    ground,
    requirement_phrase,
)
from skbsearch.synth.queries.text import check_role, fuse, plural

Progress = Callable[[str, int, int], None]
HOP_WEIGHTS = {1: 0.5, 2: 0.3, 3: 0.2}


@dataclass
class SynthQuery:
    """One synthesised query with its provenance (node indices are internal ints)."""

    id: int
    text: str
    answers: list[int]
    gold: int
    anchor: int
    template: int
    requirement: str
    candidates: list[int]
    properties: list[Property] = field(default_factory=list)
    gold_checks: list[bool] = field(default_factory=list)
    fusion: str = "template"


@dataclass
class SynthQueries:
    """The synthesised query set, its templates and the settings that made it."""

    skb: SKB
    queries: list[SynthQuery]
    templates: list[GroundedTemplate]
    settings: dict[str, Any]
    splits: dict[str, list[int]]


def _pick_template(grounded: Sequence[GroundedTemplate], rng: np.random.Generator) -> int:
    """A template index: hop count first (1: .5, 2: .3, 3: .2, renormalised), then uniform."""
    hops = sorted({g.hops for g in grounded})
    w = np.array([HOP_WEIGHTS.get(h, 0.1) for h in hops], dtype=float)
    h = hops[int(rng.choice(len(hops), p=w / w.sum()))]
    members = [k for k, g in enumerate(grounded) if g.hops == h]
    return members[int(rng.integers(len(members)))]


def _sample(skb: SKB, grounded: Sequence[GroundedTemplate], n: int, rng: np.random.Generator,
            progress: Progress | None) -> list[tuple[int, int, int, np.ndarray]]:
    """``n`` distinct (template, anchor, gold, candidates) draws."""
    seen: set[tuple[int, int, int]] = set()
    out: list[tuple[int, int, int, np.ndarray]] = []
    for _ in range(max(50, 20 * n)):
        if len(out) >= n:
            break
        t = _pick_template(grounded, rng)
        g = grounded[t]
        anchor = int(g.anchors[int(rng.integers(len(g.anchors)))])
        cands = candidates(skb, g.template, [anchor])[0]
        if not len(cands):
            continue
        gold = int(cands[int(rng.integers(len(cands)))])
        if (t, anchor, gold) in seen:
            continue
        seen.add((t, anchor, gold))
        out.append((t, anchor, gold, cands))
        if progress:
            progress("sampling requirements", len(out), n)
    return out


def synthesize_queries(
    skb: SKB,
    n: int,
    *,
    templates: Sequence[RelationTemplate] | None = None,
    llm: LLMClient | None = None,
    seed: int = 0,
    role: str = "auto",
    targets: Sequence[str] = (),
    max_hops: int = 3,
    max_answers: int = 50,
    max_properties: int = 2,
    split: Sequence[float] = (0.6, 0.2, 0.2),
    spacy_model: str | None = DEFAULT_SPACY_MODEL,
    max_doc_chars: int = 2000,
    anchor_pool: int = 2000,
    max_paths: int = 300,
    time_budget: float | None = 120.0,
    progress: Progress | None = None,
) -> SynthQueries:
    """Synthesise ``n`` queries with answers over ``skb`` (see the module docstring).

    Args:
        templates: relation templates; ``None`` discovers metapaths of 1..``max_hops``.
        llm: an LLM client for steps 2-4; ``None`` for the deterministic path.
        role: ``customer``, ``researcher``, ``doctor`` or ``auto`` (from the node types).
        targets: target node types for discovery (default: types with text).
        max_answers: most candidates a grounded requirement may have.
        max_properties: properties per query (1..this, sampled).
        split: train/val/test fractions.
        spacy_model: spaCy pipeline for noun chunks (``None``: a regex chunker).
        max_doc_chars: characters of a document shown to the LLM.
        anchor_pool: anchors sampled per template to find those that ground.
        max_paths: candidate metapaths tried at most (shortest first, longer ones sampled).
        time_budget: seconds for finding templates (discovery stops with those found).
    """
    if n < 1:
        raise InputError("the number of queries must be at least 1", field="n")
    if len(split) != 3 or any(x < 0 for x in split) or not sum(split) > 0:
        raise InputError("split must be three non-negative fractions (train, val, test)", field="split")
    counts = np.bincount(skb.node_type_codes, minlength=len(skb.type_names)).tolist()
    role = check_role(role, skb.type_names, counts)
    templates_from = "file" if templates is not None else "auto"
    rng = np.random.default_rng(seed)
    for t in targets:
        skb.nodes_of_type(t)  # unknown types raise
    if templates is None:
        found = discover_templates(skb, list(targets) or default_targets(skb), rng, max_hops=max_hops,
                                   max_answers=max_answers, probe=200, max_paths=max_paths,
                                   time_budget=time_budget, progress=progress)
        templates = [g.template for g in found]
    grounded = []
    for k, tpl in enumerate(templates):  # a larger anchor pool for the templates kept
        grounded.append(ground(skb, tpl, rng, max_answers=max_answers, probe=anchor_pool))
        if progress:
            progress("grounding templates", k + 1, len(templates))
    usable = [g for g in grounded if len(g.anchors)]
    if not usable:
        raise InputError(f"no relation template grounds to 1..{max_answers} candidates on this SKB; "
                         "give templates with --templates or raise --max-answers", field="templates")
    draws = _sample(skb, usable, n, rng, progress)
    nlp = load_spacy(spacy_model) if spacy_model else None
    extractors = {t: PropertyExtractor(skb, t, nlp=nlp)
                  for t in sorted({usable[d[0]].template.target for d in draws})}
    queries = _build(skb, usable, draws, extractors, llm, role, seed, max_properties, max_doc_chars, progress)
    splits = _splits(len(queries), split, seed)
    settings = {
        "n": n, "seed": seed, "role": role, "targets": list(targets), "max_hops": max_hops,
        "max_answers": max_answers, "max_properties": max_properties, "split": list(split),
        "templates": templates_from,
        "mode": "llm" if llm is not None else "lexical",
        "llm": getattr(llm, "model", None) if llm is not None else None,
        "property_extractor": {t: e.extractor for t, e in extractors.items()},
        "templates_not_grounded": [g.template.name for g in grounded if not len(g.anchors)],
    }
    return SynthQueries(skb, queries, usable, settings, splits)


def _splits(n: int, split: Sequence[float], seed: int) -> dict[str, list[int]]:
    """Query positions of the train / val / test splits (seeded shuffle, then cut by fraction)."""
    order = np.random.default_rng([seed, 7]).permutation(n).tolist()
    fr = np.asarray(split, dtype=float) / float(sum(split))
    n_train = int(round(fr[0] * n))
    n_val = int(round(fr[1] * n))
    return {"train": sorted(order[:n_train]), "val": sorted(order[n_train:n_train + n_val]),
            "test": sorted(order[n_train + n_val:])}


def _build(skb: SKB, grounded: Sequence[GroundedTemplate], draws: Sequence[tuple[int, int, int, np.ndarray]],
           extractors: dict[str, PropertyExtractor], llm: LLMClient | None, role: str, seed: int,
           max_properties: int, max_doc_chars: int, progress: Progress | None) -> list[SynthQuery]:
    """Steps 2-4 for every draw."""
    names = skb.column("name")
    qrngs = [np.random.default_rng([seed, 1, k]) for k in range(len(draws))]
    parsed: dict[int, dict[str, Any]] = {}
    for target, ex in extractors.items():
        ks = [k for k, d in enumerate(draws) if grounded[d[0]].template.target == target]
        for k, doc in zip(ks, ex.parse([draws[k][2] for k in ks], progress), strict=True):
            parsed[k] = doc
    queries: list[SynthQuery] = []
    for k, (t, anchor, gold, cands) in enumerate(draws):
        tpl = grounded[t].template
        ex = extractors[tpl.target]
        n_props = int(qrngs[k].integers(1, max_properties + 1))
        anchor_name = names[anchor] or skb.ids[anchor]
        if ex.mode == "text":
            props = [p for p in [ex.category(gold)] if p is not None]
            props += ex.text_properties(gold, qrngs[k], n_props, set(content_words(anchor_name)), parsed.get(k))
        else:
            first = tpl.path[0]
            props = ex.relation_properties(gold, qrngs[k], n_props, {first, inverse(first)}, {anchor})
        queries.append(SynthQuery(k, "", [], gold, anchor, t, requirement_phrase(tpl, anchor_name),
                                  cands.tolist(), props))
    if llm is not None:
        _llm_properties(skb, grounded, queries, extractors, llm, role, max_doc_chars, progress)
    for k, q in enumerate(queries):
        tpl = grounded[q.template].template
        cat = next((p.text for p in q.properties if p.kind == "category"), None)
        q.text = fuse(role, cat or tpl.target, q.requirement, q.properties, qrngs[k])
    if llm is not None:
        _llm_fuse(skb, grounded, queries, llm, role, progress)
    _filter(skb, grounded, queries, extractors, llm, max_doc_chars, progress)
    return queries


def _llm_properties(skb: SKB, grounded: Sequence[GroundedTemplate], queries: list[SynthQuery],
                    extractors: dict[str, PropertyExtractor], llm: LLMClient, role: str,
                    max_doc_chars: int, progress: Progress | None) -> None:
    """Step 2 with the LLM (text targets only); a query keeps its lexical properties when
    the response cannot be parsed."""
    jobs = [q for q in queries if extractors[grounded[q.template].template.target].mode == "text"]
    convs = []
    for q in jobs:
        tpl = grounded[q.template].template
        ex = extractors[tpl.target]
        n = max(1, sum(p.kind == "text" for p in q.properties))
        convs.append(L.extract_prompt(role, tpl.target, ex.document(q.gold)[:max_doc_chars], n, ex.fields))
    most = max((max(1, sum(p.kind == "text" for p in q.properties)) for q in jobs), default=1)
    answers = L.chat_batches(llm, convs, max_tokens=32 + 32 * most, stage="LLM: extracting properties",
                             progress=progress)
    for q, text in zip(jobs, answers, strict=True):
        target = grounded[q.template].template.target
        n = max(1, sum(p.kind == "text" for p in q.properties))
        got = L.parse_properties(text, target, n)
        if got:
            q.properties = [Property(p, "llm", "llm", tuple(content_words(p))) for p in got]


def _llm_fuse(skb: SKB, grounded: Sequence[GroundedTemplate], queries: list[SynthQuery], llm: LLMClient,
              role: str, progress: Progress | None) -> None:
    """Step 3 with the LLM: generate, then rephrase; a query whose LLM versions drop the
    anchor's name keeps its template sentence."""
    names = skb.column("name")
    first = []
    for q in queries:
        tpl = grounded[q.template].template
        reqs = [f"{article(tpl.target)} {tpl.target} {q.requirement}"] + [p.text for p in q.properties
                                                                          if p.kind != "category"]
        first.append(L.fuse_prompt(role, plural(tpl.target), reqs, names[q.anchor] or skb.ids[q.anchor]))
    drafts = [L.clean_query(t) for t in
              L.chat_batches(llm, first, max_tokens=80, stage="LLM: fusing queries", progress=progress)]
    second = [L.rewrite_prompt(role, plural(grounded[q.template].template.target), d)
              for q, d in zip(queries, drafts, strict=True)]
    final = [L.clean_query(t) for t in
             L.chat_batches(llm, second, max_tokens=80, stage="LLM: rephrasing queries", progress=progress)]
    for q, d, f in zip(queries, drafts, final, strict=True):
        anchor = (names[q.anchor] or skb.ids[q.anchor]).lower()
        if f and anchor in f.lower():
            q.text, q.fusion = f, "llm"
        elif d and anchor in d.lower():
            q.text, q.fusion = d, "llm-draft"
        else:
            q.fusion = "template-fallback"


def _filter(skb: SKB, grounded: Sequence[GroundedTemplate], queries: list[SynthQuery],
            extractors: dict[str, PropertyExtractor], llm: LLMClient | None, max_doc_chars: int,
            progress: Progress | None) -> None:
    """Step 4: answers = gold + candidates passing every property check."""
    verdict: dict[tuple[int, int, int], bool] = {}
    jobs: list[tuple[tuple[int, int, int], Any]] = []
    for qi, q in enumerate(queries):
        ex = extractors[grounded[q.template].template.target]
        for pi, p in enumerate(q.properties):
            for c in q.candidates:
                if llm is not None and p.relation is None:
                    target = grounded[q.template].template.target
                    jobs.append(((qi, pi, c), L.verify_prompt(target, ex.document(c)[:max_doc_chars], p.text)))
                else:
                    verdict[(qi, pi, c)] = ex.check(p, c)
        if progress and llm is None:
            progress("filtering candidates", qi + 1, len(queries))
    if jobs:
        answers = L.chat_batches(llm, [j[1] for j in jobs], max_tokens=4,  # type: ignore[arg-type]
                                 stage="LLM: verifying candidates", progress=progress)
        for (key, _), text in zip(jobs, answers, strict=True):
            verdict[key] = L.parse_bool(text)
    for qi, q in enumerate(queries):
        keep = {q.gold}
        for c in q.candidates:
            if all(verdict[(qi, pi, c)] for pi in range(len(q.properties))):
                keep.add(c)
        q.gold_checks = [verdict[(qi, pi, q.gold)] for pi in range(len(q.properties))]
        q.answers = sorted(keep)
