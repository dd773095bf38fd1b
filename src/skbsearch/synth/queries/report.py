"""Writing synthesised queries in STaRK's QA layout, and their report.

``OUT/stark_qa/stark_qa.csv`` (``id,query,answer_ids``; the answers a list literal such as
``[601168, 947318]``, or ``["p1", "p2"]`` for string node ids: valid JSON and Python),
``OUT/split/{train,val,test}.index`` (query ids, one a line, as STaRK ships them),
``OUT/queries.jsonl`` (each query with its template, anchor, gold, properties and
candidates), ``OUT/templates.json`` (the grounded templates, reusable with
``--templates``) and ``OUT/report.json`` (:func:`build_report`).
"""

from __future__ import annotations

import csv
import io
import json
import statistics
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skbsearch.core.atomic import atomic_dir
from skbsearch.core.outfile import check_output_dir
from skbsearch.synth.queries import SynthQueries, SynthQuery
from skbsearch.synth.queries.properties import content_words

GENERATOR = "skbsearch.synth.queries v1 (synthetic)"
ARTEFACT = "synth-queries"
LENGTH_BINS = ((0, 9), (10, 14), (15, 19), (20, 29), (30, 49), (50, None))
ANSWER_BINS = ((1, 1), (2, 2), (3, 5), (6, 10), (11, 20), (21, 50), (51, None))


def _bins(values: Sequence[int], bins: Sequence[tuple[int, int | None]]) -> dict[str, int]:
    out = {}
    for lo, hi in bins:
        label = f"{lo}+" if hi is None else (str(lo) if lo == hi else f"{lo}-{hi}")
        out[label] = sum(1 for v in values if v >= lo and (hi is None or v <= hi))
    return out


def _dist(values: Sequence[int], bins: Sequence[tuple[int, int | None]]) -> dict[str, Any]:
    vals = list(values) or [0]
    return {"mean": round(statistics.fmean(vals), 3), "median": float(statistics.median(vals)),
            "min": min(vals), "max": max(vals), "histogram": _bins(vals, bins)}


def word_ratio(q: SynthQuery) -> tuple[int, int]:
    """Content words of the query from the relational side (requirement, relation
    properties) and from the textual properties."""
    rel = set(content_words(q.requirement))
    for p in q.properties:
        if p.kind == "relation":
            rel.update(content_words(p.text))
    text = {w for p in q.properties if p.kind != "relation" for w in content_words(p.text)} - rel
    words = content_words(q.text)
    return sum(w in rel for w in words), sum(w in text for w in words)


def build_report(sq: SynthQueries, stats: dict[str, Any] | None = None) -> dict[str, Any]:
    """Distributions and checks of a query set (no timings or paths: reproducible bytes).

    ``stats`` is STaRK's Table-4 set statistics (entropy, TTR: computed by the caller
    with :func:`skbsearch.eval.query_stats.query_set_stats`, a layer above this one).
    """
    qs = sq.queries
    lengths = [len(q.text.split()) for q in qs]
    answers = [len(q.answers) for q in qs]
    rel_words, text_words = map(sum, zip(*[word_ratio(q) for q in qs], strict=True)) if qs else (0, 0)
    checked = [q for q in qs if q.gold_checks]
    n_checks = sum(len(q.gold_checks) for q in qs)
    others = sum(len(q.candidates) - 1 for q in qs)
    kept = sum(len(q.answers) - 1 for q in qs)
    per_template = Counter(q.template for q in qs)
    return {
        "artefact": ARTEFACT,
        "generator": GENERATOR,
        "synthetic": True,
        "skb": {"num_nodes": sq.skb.num_nodes, "num_edges": sq.skb.num_edges,
                "content_hash": sq.skb.meta.get("content_hash")},
        "settings": sq.settings,
        "queries": len(qs),
        "query_length_words": _dist(lengths, LENGTH_BINS),
        "answers_per_query": _dist(answers, ANSWER_BINS),
        "candidates_per_query": _dist([len(q.candidates) for q in qs], ANSWER_BINS),
        "filtering": {"other_candidates": others, "kept": kept,
                      "kept_rate": round(kept / others, 4) if others else None},
        "relational_textual_words": {
            "relational": rel_words, "textual": text_words,
            "ratio": round(rel_words / text_words, 3) if text_words else None},
        "verification": {
            "method": "llm" if sq.settings.get("mode") == "llm" else "lexical",
            "queries_checked": len(checked),
            "gold_verified_rate": round(sum(all(q.gold_checks) for q in checked) / len(checked), 4)
            if checked else None,
            "checks": n_checks,
            "check_pass_rate": round(sum(sum(q.gold_checks) for q in qs) / n_checks, 4) if n_checks else None,
        },
        "properties": dict(sorted(Counter(p.kind for q in qs for p in q.properties).items())),
        "fusion": dict(sorted(Counter(q.fusion for q in qs).items())),
        "hops": {str(h): c for h, c in sorted(Counter(len(sq.templates[q.template].template.path)
                                                       for q in qs).items())},
        "templates": [
            {"template": g.template.name, "hops": g.hops, "anchors": int(len(g.anchors)),
             "probed": g.probed, "queries": per_template.get(k, 0)}
            for k, g in enumerate(sq.templates)
        ],
        "split": {k: len(v) for k, v in sq.splits.items()},
        "stats": stats,
    }


def _answer_ids(sq: SynthQueries) -> list[str]:
    ids = sq.skb.ids
    numeric = all(s.isdigit() and (s == "0" or not s.startswith("0")) for s in ids)
    out = []
    for q in sq.queries:
        vals = [int(ids[a]) if numeric else ids[a] for a in q.answers]
        out.append(json.dumps(vals, ensure_ascii=False))
    return out


def check_output(out: str | Path, skb_path: str | Path | None = None) -> None:
    """Refuse an output that is (or contains) the SKB, lies inside an artefact, or is a
    directory other than an earlier query-synthesis output
    (:func:`skbsearch.core.outfile.check_output_dir`)."""
    check_output_dir(out, inputs=[skb_path], kind=ARTEFACT)


def save(sq: SynthQueries, out: str | Path, *, stats: dict[str, Any] | None = None,
         overwrite: bool = True) -> dict[str, Any]:
    """Write the query set (see the module docstring) atomically; returns the report."""
    check_output(out, sq.skb.path)
    report = build_report(sq, stats)
    ids = sq.skb.ids
    with atomic_dir(out, overwrite=overwrite) as tmp:
        (tmp / "stark_qa").mkdir()
        (tmp / "split").mkdir()
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["id", "query", "answer_ids"])
        for q, a in zip(sq.queries, _answer_ids(sq), strict=True):
            w.writerow([q.id, q.text, a])
        (tmp / "stark_qa" / "stark_qa.csv").write_text(buf.getvalue(), encoding="utf-8")
        for name, members in sq.splits.items():
            (tmp / "split" / f"{name}.index").write_text("\n".join(map(str, members)), encoding="utf-8")
        with (tmp / "queries.jsonl").open("w", encoding="utf-8") as fh:
            for q in sq.queries:
                tpl = sq.templates[q.template].template
                rec = {"id": q.id, "text": q.text, "answer_ids": [ids[a] for a in q.answers],
                       "meta": {"synthetic": True, "template": tpl.name, "path": list(tpl.path),
                                "anchor": ids[q.anchor],
                                "gold": ids[q.gold], "requirement": q.requirement,
                                "properties": [p.to_dict(sq.skb) for p in q.properties],
                                "gold_checks": q.gold_checks, "candidates": [ids[c] for c in q.candidates],
                                "fusion": q.fusion}}
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        templates = [g.template.to_dict() for g in sq.templates]
        (tmp / "templates.json").write_text(json.dumps(templates, indent=2, ensure_ascii=False) + "\n",
                                            encoding="utf-8")
        (tmp / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n",
                                         encoding="utf-8")
    return report


def report_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The printed summary: one (what, value) row per number."""
    ql, an = report["query_length_words"], report["answers_per_query"]
    rw, ver, st = report["relational_textual_words"], report["verification"], report.get("stats") or {}
    rows = [
        ("queries (synthetic)", report["queries"]),
        ("mode / role", f"{report['settings']['mode']} / {report['settings']['role']}"),
        ("templates used / grounded", f"{sum(1 for t in report['templates'] if t['queries'])} / "
                                      f"{len(report['templates'])}"),
        ("queries by hops", ", ".join(f"{h}: {c}" for h, c in report["hops"].items())),
        ("query length, words (mean / median / max)", f"{ql['mean']:.1f} / {ql['median']:g} / {ql['max']}"),
        ("query length histogram", ", ".join(f"{k}: {v}" for k, v in ql["histogram"].items())),
        ("answers (mean / median / max)", f"{an['mean']:.2f} / {an['median']:g} / {an['max']}"),
        ("answers histogram", ", ".join(f"{k}: {v}" for k, v in an["histogram"].items())),
        ("candidates kept by filtering", report["filtering"]["kept_rate"]),
        ("relational : textual words", f"{rw['relational']} : {rw['textual']} (ratio {rw['ratio']})"),
        ("gold verified rate", f"{ver['gold_verified_rate']} ({ver['method']}, {ver['queries_checked']} queries)"),
    ]
    if st:
        rows += [("Shannon entropy (bits)", round(st["entropy"], 3)), ("type-token ratio", round(st["ttr"], 4))]
    rows.append(("split train / val / test", " / ".join(str(v) for v in report["split"].values())))
    return [{"what": k, "value": v} for k, v in rows]
