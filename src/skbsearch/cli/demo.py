"""``skb demo``: the main job on built-in generated data."""

from __future__ import annotations

from pathlib import Path

import typer

from skbsearch.cli.arguments import output_dir_option, output_option
from skbsearch.cli.output import handle_errors, print_json


def register(app: typer.Typer) -> None:
    """Add ``skb demo`` to ``app``."""

    @app.command("demo")
    @handle_errors
    def demo(
        out: Path | None = typer.Option(None, "--out", help="Keep the generated SKB and indexes here (default: a temp dir).", callback=output_dir_option),
        products: int = typer.Option(2000, "--products", min=50, help="Generated products."),
        queries: int = typer.Option(100, "--queries", min=1, help="Generated queries."),
        seed: int = typer.Option(0, "--seed", help="Generator seed."),
        show: int = typer.Option(3, "--show", min=0, help="Queries to print with results and evidence."),
        as_json: bool = typer.Option(False, "--json", help="Print the metrics as JSON only."),
        save_result: Path | None = typer.Option(None, "--save-result", help="Write the common benchmark JSON here.", callback=output_option),
    ) -> None:
        """Build a synthetic catalogue SKB, index it, run its queries and evaluate them."""
        from skbsearch.demo import run_demo

        result = run_demo(out, products=products, queries=queries, seed=seed, show=show, quiet=as_json)
        if save_result is not None:
            result.to_benchmark_result().to_json(save_result)
        if as_json:
            print_json({"config": result.config, "metrics": result.metrics, "implicit": result.implicit,
                        "latency_ms": result.latency_ms})
