"""Oracle check of the enrichers on the shared IMPLIRET pools.

The questions are read ONLY here, to check that each document's enriched facts contain
the fact its question asks for (the enrichers themselves never see them).
"""

from __future__ import annotations

import json
import re
import time
from datetime import datetime
from pathlib import Path

import pytest

from skbsearch.enrich import (
    ArithmeticEnricher,
    GazetteerEnricher,
    TemporalEnricher,
    enrich_documents,
)

POOLS = {
    "temporal": (TemporalEnricher, 0.97),
    "arithmetic": (ArithmeticEnricher, 0.90),
    "wknow": (None, 0.97),
}


def _asked(category: str, question: str):
    if category == "temporal":
        d = re.search(r"on (\w+ \d+, \d{4})", question).group(1)
        hour = re.search(r"at (\d+):00", question)
        return datetime.strptime(d, "%B %d, %Y").date().isoformat(), int(hour.group(1)) if hour else None
    if category == "arithmetic":
        return float(re.search(r"\$([\d,]+)", question).group(1).replace(",", "")), None
    return re.search(r"(?:in|visiting) ([A-Z][\w .'-]+?)\??$", question).group(1), None


def _covered(category: str, facts, want, hour) -> bool:
    if category == "temporal":
        hits = [f for f in facts if f.kind == "date" and f.value == want]
        if hour is None:
            return bool(hits)
        return any(
            f.attrs.get("time_end") and int(f.attrs["time_start"][:2]) <= hour < int(f.attrs["time_end"][:2])
            for f in hits
        )
    if category == "arithmetic":
        return any(f.kind == "price" and abs(f.value - want) < 0.01 for f in facts)
    return any(f.kind == "place" and f.attrs.get("country") == want for f in facts)


@pytest.mark.data
def test_impliret_coverage(shared_data: Path) -> None:
    folder = shared_data / "impliret"
    gaz = shared_data / "gazetteer" / "wikidata_landmarks.jsonl"
    if not folder.is_dir() or not gaz.is_file():
        pytest.skip("IMPLIRET or gazetteer data not found")
    t0 = time.perf_counter()
    enrichers = {"temporal": TemporalEnricher(), "arithmetic": ArithmeticEnricher(), "wknow": GazetteerEnricher.from_jsonl(gaz)}
    report = {}
    for category, (_, floor) in POOLS.items():
        for style in ("multispeaker", "unispeaker"):
            rows = [json.loads(x) for x in (folder / f"{category}_{style}.jsonl").read_text().splitlines() if x.strip()]
            docs = enrich_documents([(str(r["id"]), r["document"]) for r in rows], [enrichers[category]], progress=False)
            ok = 0
            for r, d in zip(rows, docs, strict=True):
                want, hour = _asked(category, r["question"])
                ok += _covered(category, d.facts, want, hour)
            report[f"{category}_{style}"] = ok / len(rows)
            assert ok / len(rows) >= floor, (category, style, ok / len(rows))
    elapsed = time.perf_counter() - t0
    print("coverage:", {k: round(v, 4) for k, v in report.items()}, f"time {elapsed:.1f}s")
    assert elapsed < 60
