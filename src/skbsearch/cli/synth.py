"""`skb synth ...`: generate synthetic datasets (clearly marked as synthetic)."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import typer

from skbsearch.cli.output import err_console, handle_errors, print_json, print_table

STAGES = ("products", "text", "edges", "skb", "queries", "save")


def summarise(ds: Any, path: Path, seconds: float) -> dict[str, Any]:
    """Counts per node type, relation and query template, and answers per query."""
    import numpy as np

    skb = ds.skb
    types = np.bincount(skb.node_type_codes, minlength=len(skb.type_names))
    rels = np.bincount(skb.edge_rel, minlength=len(skb.schema.relations))
    sizes = [len(ds.qrels.get(q.id, {})) for q in ds.queries]
    return {
        "path": str(path),
        "synthetic": True,
        "seconds": round(seconds, 2),
        "nodes": {t: int(c) for t, c in zip(skb.type_names, types, strict=True)},
        "edges": {r: int(c) for r, c in zip(skb.schema.relations, rels, strict=True)},
        "queries": len(ds.queries),
        "templates": dict(Counter(q.meta.get("template", "?") for q in ds.queries)),
        "answers_per_query": {
            "mean": float(np.mean(sizes)) if sizes else 0.0,
            "min": min(sizes, default=0),
            "max": max(sizes, default=0),
        },
    }


def register(app: typer.Typer) -> None:
    """Add the ``synth`` command group to ``app``."""
    synth = typer.Typer(help="Generate synthetic SKBs with queries and qrels.", no_args_is_help=True)

    @synth.command("catalogue")
    @handle_errors
    def catalogue(
        out: Path = typer.Argument(..., help="Output directory (skb/, queries.jsonl, qrels.trec)."),
        products: int = typer.Option(1000, "--products", "-n", min=1, help="Number of products."),
        queries: int = typer.Option(100, "--queries", min=0, help="Number of queries."),
        seed: int = typer.Option(0, "--seed", help="Random seed (same seed, same dataset)."),
        no_text: bool = typer.Option(False, "--no-text", help="Skip titles/descriptions/reviews."),
        max_answers: int = typer.Option(20, "--max-answers", min=1, help="Most answers a query may have."),
        force: bool = typer.Option(False, "--force", help="Replace OUT if it exists."),
        json_out: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    ) -> None:
        """Generate a SYNTHETIC STaRK-Amazon-like product catalogue SKB with queries and qrels."""
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        from skbsearch.synth.catalogue import generate_catalogue

        if out.exists() and not force:
            raise FileExistsError(f"{out} exists; pass --force to replace it")
        start = time.perf_counter()
        with Progress(
            SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(),
            console=err_console, transient=True, disable=quiet or json_out,
        ) as bar:
            task = bar.add_task("generating", total=len(STAGES))

            def step(stage: str) -> None:
                bar.update(task, completed=STAGES.index(stage), description=f"generating: {stage}")

            ds = generate_catalogue(
                products, seed=seed, n_queries=queries, with_text=not no_text,
                max_answers=max_answers, progress=step,
            )
            step("save")
            ds.save(out, overwrite=True)
            bar.update(task, completed=len(STAGES))
        info = summarise(ds, out, time.perf_counter() - start)
        if json_out:
            print_json(info)
            return
        if quiet:
            return
        rows = [{"what": f"nodes: {k}", "count": v} for k, v in info["nodes"].items()]
        rows += [{"what": f"edges: {k}", "count": v} for k, v in info["edges"].items()]
        rows += [{"what": f"queries: {k}", "count": v} for k, v in sorted(info["templates"].items())]
        a = info["answers_per_query"]
        rows.append({"what": "answers per query (mean / min / max)", "count": f"{a['mean']:.1f} / {a['min']} / {a['max']}"})
        print_table(rows, title=f"Synthetic catalogue -> {out} ({info['seconds']:.1f} s)")

    app.add_typer(synth, name="synth")
