"""``skb demo``: the main job on built-in, generated data.

Builds a small **synthetic** product-catalogue SKB (seeded; see :mod:`skbsearch.synth`),
indexes it, runs its queries through several retrieval pipelines, prints a few results
with the rendered evidence, and an evaluation table (Hit@1, Hit@5, Recall@20, MRR).
Every number it prints is computed in the run.
"""

from __future__ import annotations

import shlex
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.documents import DocumentRenderer
from skbsearch.eval import evaluate
from skbsearch.eval.latency import LatencyRecorder
from skbsearch.index import get_kind
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.store import SKB
from skbsearch.retrieve.filters import NodeFilter
from skbsearch.retrieve.sparse import BM25Retriever, evidence_lines
from skbsearch.stages import fit, pipeline
from skbsearch.stages.context import StageContext
from skbsearch.synth.catalogue import CatalogueDataset, generate_catalogue

METRICS = ["hit@1", "hit@5", "recall@20", "mrr"]


@dataclass
class DemoResult:
    """What the demo computed: per-system metrics, latency, and the runs."""

    metrics: dict[str, dict[str, float]] = field(default_factory=dict)
    latency_ms: dict[str, dict[str, float]] = field(default_factory=dict)
    runs: dict[str, Run] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    implicit: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_benchmark_result(self) -> BenchmarkResult:
        """The common benchmark JSON shape: ``groups`` per system, ``metrics`` of the best."""
        best = max(self.metrics, key=lambda s: self.metrics[s]["mrr"])
        lat = {f"{s}.{k.removesuffix('_ms')}": v for s, d in self.latency_ms.items() for k, v in d.items()}
        return BenchmarkResult(
            "demo", config={**self.config, "best": best}, metrics=self.metrics[best],
            groups={**self.metrics, **{f"implicit: {k}": v for k, v in self.implicit.items()}},
            latency_ms=lat,
        )


def _systems(skb: SKB, indexes: Path, say: Callable[[str], None],
             train: tuple[list[Query], Qrels] | None = None) -> dict[str, Callable[[list[Query]], Run]]:
    """The pipelines the demo compares, built on ``skb``.

    Indexes go under ``indexes`` (``SKB_DIR/indexes``): the plain BM25 index where
    ``skb search SKB_DIR`` looks for it, the relation-aware one beside it (``--index``).
    The graph stage runs untrained (``graph``) and fitted on ``train`` (other generated
    queries than the evaluated ones; ``graph (fitted)``, its model saved under
    ``indexes/kg-model``).
    """
    products = NodeFilter(types=("product",))
    systems: dict[str, Callable[[list[Query]], Run]] = {}
    bm25_dir = indexes / get_kind("bm25").index_dir_name

    say("indexing: BM25 over node text")
    plain = BM25Index.from_skb(skb)
    plain.save(bm25_dir)
    systems["bm25"] = BM25Retriever(BM25Index.load(bm25_dir), k=100, filter=products, skb=skb)

    say("indexing: BM25 over node text + relations (brand, category, colour, also bought) as a "
        "second field: the default of 'skb index'")
    rel = BM25Index.default_for_skb(skb)
    rel.save(indexes / "bm25-rel")
    systems["bm25+rel"] = BM25Retriever(BM25Index.load(indexes / "bm25-rel"), k=100, filter=products, skb=skb)

    say("graph stage, untrained: linked names, metapaths from the schema, text, price/rating bounds")
    systems["graph"] = pipeline("graph(target=[product])", StageContext(skb))

    kg = pipeline("graph", StageContext(skb))
    if train is not None and train[0]:
        say(f"graph stage, fitted: metapaths, aliases and weights from {len(train[0])} "
            "other generated queries")
        fit(kg, *train)
        kg.save_model(indexes / "kg-model")
    systems["graph (fitted)"] = kg
    return systems


def run_demo(
    out: str | Path | None = None,
    *,
    products: int = 2000,
    queries: int = 100,
    train_queries: int = 400,
    seed: int = 0,
    show: int = 3,
    console: Console | None = None,
    quiet: bool = False,
) -> DemoResult:
    """Run the demo end to end and print it (unless ``quiet``); returns the numbers.

    Args:
        out: directory for the generated SKB and indexes (default: a temp dir, removed).
        products: number of generated products.
        queries: number of generated queries.
        train_queries: further generated queries (never evaluated) the graph stage fits on.
        seed: generator seed.
        show: how many queries to print with their top results and evidence.
    """
    console = console or Console()

    def say(msg: str) -> None:
        if not quiet:
            console.print(Text(f"· {msg}", style="dim"))

    tmp = None
    if out is None:
        tmp = tempfile.TemporaryDirectory(prefix="skb-demo-")
        out = tmp.name
    work = Path(out)
    t0 = time.perf_counter()
    try:
        say(f"generating a synthetic catalogue SKB: {products} products, {queries} queries (seed {seed})")
        ds = generate_catalogue(products, seed=seed, n_queries=queries + train_queries)
        # the first `queries` are evaluated (the same as generating only those); the rest fit the graph stage
        train = (ds.queries[queries:], Qrels({q.id: ds.qrels[q.id] for q in ds.queries[queries:]}))
        ds.queries = ds.queries[:queries]
        ds.qrels = Qrels({q.id: ds.qrels[q.id] for q in ds.queries})
        ds.save(work / "dataset")
        ds = CatalogueDataset.load(work / "dataset")
        skb = ds.skb
        say(f"SKB: {skb.num_nodes} nodes, {skb.num_edges} edges, types {skb.type_names}")
        skb_dir = work / "dataset" / "skb"
        systems = _systems(skb, skb_dir / "indexes", say, train)
        result = DemoResult(config={"products": products, "queries": queries, "seed": seed,
                                    "graph_train_queries": len(train[0])})
        lat = LatencyRecorder()
        for name, stage in systems.items():
            with lat.stage(name, n_queries=len(ds.queries)):
                run = stage(ds.queries)
            result.runs[name] = run
            result.metrics[name] = evaluate(run, ds.qrels, METRICS)
        for name, row in lat.summary().items():
            result.latency_ms[name] = {k: row[k] for k in ("p50_ms", "p95_ms") if k in row}
        if not quiet:
            best = max(result.metrics, key=lambda s: result.metrics[s]["mrr"])
            _print_examples(console, ds, skb, result.runs[best], best, show)
            _print_table(console, result)
        from skbsearch.demo_implicit import run_implicit_demo

        implicit = run_implicit_demo(seed=seed, console=console, quiet=quiet)
        result.implicit = implicit
        if not quiet:
            done = f"demo finished in {time.perf_counter() - t0:.1f} s"
            if tmp is None:
                q = shlex.quote(str(skb_dir))
                rel_dir = shlex.quote(str(skb_dir / "indexes" / "bm25-rel"))
                kg_spec = shlex.quote(f"graph(model='{skb_dir / 'indexes' / 'kg-model'}') % 10")
                done = (f"\n{done}; data under {work}\nsearch it: skb search {q} 'red hiking jacket' "
                        f"--type product (relation-aware index: add --index {rel_dir}; the fitted "
                        f"graph stage: -p {kg_spec})")
            console.print(Text(done, style="dim"), highlight=False, soft_wrap=True)  # copy-pasteable
        return result
    finally:
        if tmp is not None:
            tmp.cleanup()


def _print_examples(console: Console, ds: CatalogueDataset, skb: SKB, run: Run, system: str, show: int) -> None:
    renderer = DocumentRenderer(add_rel=True, max_per_relation=3)
    console.rule(f"[bold]Example queries ({system})")
    for q in ds.queries[:show]:
        rel = ds.qrels.relevant(q.id)
        console.print(f"\n[bold cyan]{escape(q.id)}[/] {escape(q.text)}  [dim]({len(rel)} relevant)[/]")
        for rank, (doc, score) in enumerate(run.ranked(q.id)[:3], start=1):
            mark = "[green]✓[/]" if doc in rel else "[red]✗[/]"
            node = skb.node(doc)
            console.print(f"  {rank}. {mark} [bold]{escape(node.name)}[/] [dim]({escape(doc)}, score {score:.2f})[/]",
                          highlight=False)
            doc_text = renderer.render(skb, int(skb.index_of(doc)))
            for line in evidence_lines(q.text, doc_text, max_lines=2, width=110):
                console.print(Text("       │ ", style="dim") + Text(line), highlight=False)


def _print_table(console: Console, result: DemoResult) -> None:
    from rich.table import Table

    table = Table(title="Evaluation on the generated queries (synthetic data)")
    table.add_column("system")
    for m in METRICS:
        table.add_column(m.replace("hit", "Hit").replace("recall", "Recall").replace("mrr", "MRR"), justify="right")
    table.add_column("p50 ms/query", justify="right")
    best = {m: max(r[m] for r in result.metrics.values()) for m in METRICS}
    for name, row in result.metrics.items():
        cells = [f"[bold]{row[m]:.3f}[/]" if row[m] == best[m] else f"{row[m]:.3f}" for m in METRICS]
        p50 = result.latency_ms.get(name, {}).get("p50_ms")
        table.add_row(name, *cells, f"{p50:.2f}" if p50 is not None else "")
    console.print()
    console.print(table)
