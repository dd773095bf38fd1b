"""The implicit-fact part of ``skb demo``: enrichment at index time on generated chats.

Generates a few synthetic chat messages whose relevant fact is implicit (relative dates,
relative prices, landmarks without their country), enriches them at index time
(temporal, arithmetic, gazetteer enrichers), and compares BM25 on the raw text with the
constraint-aware retriever over the enriched documents.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from skbsearch.enrich import (
    ArithmeticEnricher,
    Fact,
    GazetteerEnricher,
    TemporalEnricher,
    enrich_documents,
)
from skbsearch.enrich.gazetteer import Gazetteer, load_wikidata_landmarks
from skbsearch.eval import evaluate
from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.constrained import ConstrainedRetriever
from skbsearch.retrieve.sparse import BM25Retriever
from skbsearch.synth.chats import generate_chats

METRICS = ["hit@1", "mrr"]


def _describe(fact: Fact) -> str:
    """``kind=value`` plus the attributes that tie it to the message (who, what, where)."""
    keep = ("speaker", "entity", "expression", "country", "region")
    extra = ", ".join(f"{k}: {fact.attrs[k]}" for k in keep if fact.attrs.get(k))
    return f"{fact.kind}={fact.value}" + (f" ({extra})" if extra else "")


def run_implicit_demo(
    *, seed: int = 0, console: Console | None = None, quiet: bool = False
) -> dict[str, dict[str, float]]:
    """Run and print the section; returns ``{system: metrics}``."""
    console = console or Console()
    ds = generate_chats(seed=seed)
    with tempfile.TemporaryDirectory(prefix="skb-gazetteer-") as tmp:
        path = Path(tmp) / "landmarks.jsonl"  # the real loader reads the built-in records
        path.write_text("\n".join(json.dumps(r) for r in ds.gazetteer) + "\n", encoding="utf-8")
        gazetteer = Gazetteer(load_wikidata_landmarks(path))
    enrichers = [TemporalEnricher(), ArithmeticEnricher(), GazetteerEnricher(gazetteer)]
    docs = enrich_documents(ds.documents, enrichers, progress=False)
    systems = {
        "bm25 (raw text)": BM25Retriever(BM25Index.from_texts(ds.documents.items()), k=100),
        "enriched + constraints": ConstrainedRetriever(docs, places=gazetteer),
    }
    results = {name: evaluate(stage(ds.queries), ds.qrels, METRICS) for name, stage in systems.items()}
    if quiet:
        return results
    console.rule("[bold]Implicit facts: enrichment at index time (synthetic chats)")
    by_id = {d.id: d for d in docs}
    for q in ds.queries[:: max(1, len(ds.queries) // 3)][:3]:
        did = next(iter(ds.qrels[q.id]))
        console.print(f"\n[bold cyan]{escape(q.id)}[/] {escape(q.text)}", highlight=False)
        console.print(Text("   message: ", style="dim") + Text(ds.documents[did]), highlight=False)
        facts = "; ".join(_describe(f) for f in by_id[did].facts)
        console.print(Text("   derived: ", style="dim") + Text(facts or "(none)", style="green"), highlight=False)
    from rich.table import Table

    table = Table(title=f"Implicit-fact retrieval ({len(ds.documents)} messages, {len(ds.queries)} queries)")
    table.add_column("system")
    for m in METRICS:
        table.add_column(m.replace("hit", "Hit").replace("mrr", "MRR"), justify="right")
    for name, row in results.items():
        table.add_row(name, *(f"{row[m]:.3f}" for m in METRICS))
    console.print()
    console.print(table)
    return results
