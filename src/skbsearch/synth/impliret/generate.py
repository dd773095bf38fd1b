"""Generate **synthetic** IMPLIRET-style pools: tuple sets, entity binding, documents,
verification, and the IMPLIRET JSONL that ``skb bench impliret`` reads.

The pipeline of Taghavi et al. (2025), Section 2 and Appendix A: for one category
(arithmetic, temporal, wknow) and style (uni, multi), ``sets`` tuple sets of ``tuples``
tuples (:mod:`.impliret_tuples`); entities bound per pool and per document
(:mod:`.impliret_bind`); one document per tuple, by an LLM with the Appendix A.4 prompts
(:mod:`.impliret_llm`) or by the template realiser (:mod:`.impliret_text`); each document
verified (:mod:`.impliret_verify`: the tuple must be recoverable), retried with another
draw on failure, and dropped when no draw passes (the paper keeps only verified
examples). Without an LLM the same arguments give byte-identical output.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, is_dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.synth.impliret.bind import CATEGORIES, STYLES, Scenario, bind_set, pool_entities
from skbsearch.synth.impliret.lexicons import Lexicons, load_lexicons
from skbsearch.synth.impliret.places import CueDetector, eligible_landmarks, linkable
from skbsearch.synth.impliret.text import realise
from skbsearch.synth.impliret.tuples import (
    arithmetic_tuple_set,
    segment_first_day,
    temporal_multi_tuple_set,
    temporal_uni_tuple_set,
    wknow_tuple_set,
)
from skbsearch.synth.impliret.verify import EnricherVerifier

VERIFIERS = ("enrich", "llm", "both", "none")
GENERATOR = "skbsearch.synth.impliret"


def pool_name(category: str, style: str) -> str:
    """The pool's file stem, as ``skb bench impliret`` expects: ``arithmetic_unispeaker``."""
    return f"{category}_{style}speaker"


@dataclass
class ImpliretPool:
    """A generated pool: IMPLIRET records, the tuple and entities behind each, and a report."""

    category: str
    style: str
    records: list[dict[str, Any]]
    truth: list[dict[str, Any]]
    report: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """``<category>_<style>speaker``."""
        return pool_name(self.category, self.style)

    def jsonl(self) -> str:
        """The pool file's text (one record a line, keys in IMPLIRET's order)."""
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.records)


def _plain(v: Any) -> Any:
    if is_dataclass(v) and not isinstance(v, type):
        return _plain(asdict(v))
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, (date, datetime)):
        return v.isoformat()
    return v


def _restrict(lex: Lexicons, cues: CueDetector) -> Lexicons:
    """World knowledge: drop names, purposes and events that name a country."""
    from dataclasses import replace

    return replace(lex, people=[p for p in lex.people if not cues.has_cue(p.name)],
                   travel_purposes=[p for p in lex.travel_purposes if not cues.has_cue(p)],
                   events=[e for e in lex.events if not cues.has_cue(e)])


def _tuples(category: str, style: str, m: int, k: int, n: int, rng: np.random.Generator,
            places: dict[str, Any] | None) -> list[Any]:
    if category == "arithmetic":
        return arithmetic_tuple_set(m, style, rng)
    if category == "temporal" and style == "multi":
        return temporal_multi_tuple_set(m, rng)
    if category == "temporal":
        return temporal_uni_tuple_set(m, rng, segment_first_day(k, n, rng))
    assert places is not None
    return wknow_tuple_set(m, rng, places)


def _openers(lex: Lexicons, style: str, m: int, rng: np.random.Generator, writer: Any) -> list[str]:
    pool = lex.phrases["chat_openers" if style == "uni" else "forum_openers"]
    got = writer.starting_phrases(style, m) if writer is not None else []
    rest = [str(x) for x in rng.permutation(pool) if x not in got]
    return (got + rest)[:m] if len(got) + len(rest) >= m else [(got + rest)[i % len(got + rest)] for i in range(m)]


def generate_impliret(
    category: str,
    style: str,
    *,
    sets: int = 50,
    tuples: int = 30,
    seed: int = 0,
    lexicons: str | Path | Lexicons | None = None,
    gazetteer: str | Path | None = None,
    llm: Any = None,
    llm_max_tokens: int = 700,
    verify: str = "enrich",
    retries: int = 3,
    keep_unverified: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ImpliretPool:
    """Generate one pool (see the module docstring).

    Args:
        category: ``arithmetic``, ``temporal`` or ``wknow``.
        style: ``uni`` (10-utterance chats) or ``multi`` (forum posts).
        sets, tuples: N tuple sets of M tuples (paper: 50 x 30).
        seed: the same seed gives the same pool (byte-identical without an LLM).
        lexicons: a folder overriding the packaged lexicons, or loaded :class:`Lexicons`.
        gazetteer: the Wikidata landmark JSONL (world knowledge only; required there).
        llm: an LLM client; documents are then written by it (the template realiser is
            the fallback after ``retries`` failed attempts).
        llm_max_tokens: generation budget per LLM document.
        verify: ``enrich`` (our enrichers), ``llm`` (feature extraction by ``llm``), ``both``
            or ``none``.
        retries: extra draws per document after a failed verification.
        keep_unverified: keep a document no draw could verify (default: drop it).
        progress: called with (documents done, total).
    """
    from skbsearch.synth.impliret.llm import LLMWriter

    _check_arguments(category, style, verify, llm, sets, tuples, retries)
    lex = lexicons if isinstance(lexicons, Lexicons) else load_lexicons(lexicons)
    places = cues = gaz = None
    if category == "wknow":
        lex, places, cues, gaz = _world_knowledge(lex, gazetteer)
    checks = _verifier(verify, llm, gaz, cues)
    writer = LLMWriter(llm, max_tokens=llm_max_tokens) if llm is not None else None
    code = [seed, CATEGORIES.index(category), STYLES.index(style)]
    topics, mains = pool_entities(category, style, sets, lex, np.random.default_rng(code))
    reserved = frozenset(p.name for p in mains)
    records: list[dict[str, Any]] = []
    truth: list[dict[str, Any]] = []
    stats: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    total = sets * tuples
    for k in range(sets):
        rng = np.random.default_rng([*code, k + 1])
        ts = _tuples(category, style, tuples, k, sets, rng, places)
        ts = [ts[int(i)] for i in rng.permutation(len(ts))]
        scen = bind_set(category, style, k, ts, topics[k], mains[k] if mains else None, lex, rng,
                        _openers(lex, style, tuples, rng, writer), reserved)
        for i, s in enumerate(scen):
            doc, how = _document(s, lex, cues, writer, checks, retries, [*code, k + 1, i], stats, reasons)
            if doc is None or (how == "unverified" and not keep_unverified):
                stats["dropped"] += 1
            else:
                record, fact = _entry(s, k, len(records), doc, how)
                records.append(record)
                truth.append(fact)
            if progress is not None:
                progress(k * tuples + i + 1, total)
    report = {"generator": GENERATOR, "synthetic": True, "category": category, "style": style,
              "sets": sets, "tuples": tuples, "seed": seed, "verify": verify, "retries": retries,
              "llm": getattr(llm, "model", None) if llm is not None else None,
              "documents": len(records), "requested": total, **{k: stats[k] for k in sorted(stats)},
              "failure_reasons": dict(reasons.most_common())}
    return ImpliretPool(category, style, records, truth, report)


def _check_arguments(category: str, style: str, verify: str, llm: Any, sets: int, tuples: int,
                     retries: int) -> None:
    """Refuse an unknown category, style or verifier, and counts out of range."""
    if category not in CATEGORIES:
        raise InputError(f"unknown category {category!r}; use one of {', '.join(CATEGORIES)}", field="category")
    if style not in STYLES:
        raise InputError(f"unknown style {style!r}; use uni or multi", field="style")
    if verify not in VERIFIERS:
        raise InputError(f"unknown verifier {verify!r}; use one of {', '.join(VERIFIERS)}", field="verify")
    if verify in ("llm", "both") and llm is None:
        raise InputError(f"--verify {verify} needs --llm", field="verify")
    if sets < 1 or tuples < 1 or retries < 0:
        raise InputError("sets and tuples must be >= 1, retries >= 0", field="sets")


def _world_knowledge(lex: Lexicons, gazetteer: str | Path | None) -> tuple[Lexicons, Any, CueDetector, Any]:
    """What world-knowledge pools need: ``(lexicons without cue words, linkable landmarks,
    the cue detector, the gazetteer enricher)``; the gazetteer is required."""
    if gazetteer is None:
        raise InputError("world-knowledge pools need a landmark gazetteer: pass --gazetteer "
                         "FILE (Wikidata landmark JSONL)", field="gazetteer")
    from skbsearch.enrich import GazetteerEnricher

    places, cues = eligible_landmarks(gazetteer)
    lex = _restrict(lex, cues)
    gaz = GazetteerEnricher.from_jsonl(gazetteer)
    return lex, linkable(places, gaz.gazetteer), cues, gaz


def _verifier(verify: str, llm: Any, gaz: Any, cues: CueDetector | None) -> Any:
    """The document check for ``verify`` (``None`` for ``none``)."""
    from skbsearch.synth.impliret.llm import BothVerifier, LLMVerifier

    checks: Any = {"enrich": EnricherVerifier(gaz, cues), "none": None}.get(verify)
    if verify in ("llm", "both"):
        checks = LLMVerifier(llm) if verify == "llm" else BothVerifier(EnricherVerifier(gaz, cues), LLMVerifier(llm))
    return checks


def _entry(s: Scenario, k: int, n: int, doc: str, how: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The pool record (the ``n``-th kept, from tuple set ``k``) and its ground-truth entry."""
    rec = s.record(n)
    record = {"id": rec["id"], "tuple_set_id": k, "document": doc,
              **{x: rec[x] for x in rec if x not in ("id", "tuple_set_id")}}
    fact = {"id": rec["id"], "tuple_set_id": k, "generator": how, "tuple": _plain(s.tuple),
            "speaker": s.speaker.name, "partner": s.partner.name if s.partner else None,
            "topic": s.topic, "fields": _plain(s.fields)}
    return record, fact


def _document(s: Scenario, lex: Lexicons, cues: CueDetector | None, writer: Any, checks: Any, retries: int,
              key: list[int], stats: Counter[str], reasons: Counter[str]) -> tuple[str | None, str]:
    """One verified document and how it was made (LLM attempts first, then templates); the
    last draw and ``"unverified"`` when none passed, ``None`` when no draw produced text."""
    plan = (["llm"] * (retries + 1) if writer is not None else []) + ["template"] * (retries + 1)
    doc: str | None = None
    for attempt, how in enumerate(plan):
        if how == "llm":
            stats["llm_attempts"] += 1
            doc = writer.write(s, attempt)
            if doc is None:
                stats["llm_format_failures"] += 1
                continue
        else:
            if writer is not None and attempt == retries + 1:
                stats["template_fallbacks"] += 1
            doc = realise(s, np.random.default_rng([*key, attempt]), lex, cues.has_cue if cues else None)
        verdict = checks(s, doc) if checks is not None else None
        if verdict is None or verdict.ok:
            stats[f"by_{how}"] += 1
            return doc, how
        stats["verification_failures"] += 1
        reasons[f"{how}: {verdict.reason.split(' (')[0][:60]}"] += 1
    return doc, "unverified"


def write_pool(pool: ImpliretPool, out: str | Path, *, force: bool = False) -> Path:
    """Write ``OUT/<pool>.jsonl`` (and ``<pool>.meta.json``: report + ground truth) atomically.

    Other pools in ``OUT`` are left alone, so several runs can fill one folder.
    """
    from skbsearch.core.outfile import write_output

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} is not a folder", field="out")
    path = out / f"{pool.name}.jsonl"
    if path.exists() and not force:
        raise InputError(f"{path} exists; pass --force to replace it", field="out")
    meta = {**pool.report, "records": pool.truth}
    meta_path = out / f"{pool.name}.meta.json"
    write_output(meta_path, json.dumps(meta, ensure_ascii=False, indent=1) + "\n")
    write_output(path, pool.jsonl())
    return path
