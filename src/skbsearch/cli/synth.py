"""`skb synth ...`: generate synthetic datasets (clearly marked as synthetic)."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import typer

from skbsearch.cli.arguments import artefact_dir_option
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
        out: Path = typer.Argument(..., help="Output directory (skb/, queries.jsonl, qrels.trec).", callback=artefact_dir_option("catalogue")),
        products: int = typer.Option(1000, "--products", "-n", min=1, help="Number of products."),
        queries: int = typer.Option(100, "--queries", min=0, help="Number of queries."),
        seed: int = typer.Option(0, "--seed", help="Random seed (same seed, same dataset)."),
        no_text: bool = typer.Option(False, "--no-text", help="Skip titles/descriptions/reviews."),
        max_answers: int = typer.Option(20, "--max-answers", min=1, help="Most answers a query may have."),
        force: bool = typer.Option(False, "--force", help="Replace OUT if it is a synthetic catalogue."),
        json_out: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    ) -> None:
        """Generate a SYNTHETIC STaRK-Amazon-like product catalogue SKB with queries and qrels."""
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        from skbsearch.synth.catalogue import generate_catalogue

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

    register_queries(synth)
    register_gazetteer(synth)
    from skbsearch.cli.synth_impliret import register_impliret

    register_impliret(synth)
    app.add_typer(synth, name="synth")


def _split(value: str) -> tuple[float, float, float]:
    try:
        parts = tuple(float(x) for x in value.split(","))
    except ValueError:
        parts = ()
    if len(parts) != 3:
        from skbsearch.core.errors import InputError

        raise InputError(f"--split wants three fractions TRAIN,VAL,TEST, got {value!r}", field="split")
    return parts  # type: ignore[return-value]


def register_queries(synth: typer.Typer) -> None:
    """Add ``skb synth queries``."""

    @synth.command("queries")
    @handle_errors
    def queries(
        skb_dir: Path = typer.Argument(..., help="The SKB directory (from 'skb kb build')."),
        out: Path = typer.Argument(..., help="Output directory (stark_qa/stark_qa.csv, split/, report.json).", callback=artefact_dir_option("synth-queries")),
        n: int = typer.Option(100, "--n", "-n", min=1, help="Number of queries."),
        templates: str = typer.Option("auto", "--templates", help="JSON/YAML file of relation templates, or 'auto' (metapaths from the schema)."),
        llm: str | None = typer.Option(None, "--llm", help="LLM for extraction, fusion and filtering: smollm2, a .gguf path or an http(s):// OpenAI-compatible URL (default: none, deterministic)."),
        llm_model: str = typer.Option("default", "--llm-model", help="Model name sent to an HTTP endpoint."),
        seed: int = typer.Option(0, "--seed", help="Random seed (without an LLM: same seed, same bytes)."),
        role: str = typer.Option("auto", "--role", help="customer | researcher | doctor | auto."),
        target: list[str] = typer.Option([], "--target", help="Target node type (repeatable; default: types with text)."),
        max_hops: int = typer.Option(3, "--max-hops", min=1, max=3, help="Longest discovered metapath."),
        max_answers: int = typer.Option(50, "--max-answers", min=1, help="Most candidates a grounded requirement may have."),
        max_properties: int = typer.Option(2, "--max-properties", min=1, help="Textual properties per query (1..this)."),
        split: str = typer.Option("0.6,0.2,0.2", "--split", help="Train,val,test fractions."),
        max_paths: int = typer.Option(300, "--max-paths", min=1, help="Candidate metapaths tried at most (shortest first; longer ones sampled)."),
        time_budget: float = typer.Option(120.0, "--time-budget", min=1.0, help="Seconds for finding relation templates (then the queries are built from those found)."),
        force: bool = typer.Option(False, "--force", help="Replace OUT if it is an earlier 'skb synth queries' output."),
        json_out: bool = typer.Option(False, "--json", help="Print the report as JSON."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress or report."),
    ) -> None:
        """Synthesise STaRK-style queries (relational + textual) with answers on any SKB (SYNTHETIC)."""
        from skbsearch.cli.output import stage_progress
        from skbsearch.eval.query_stats import query_set_stats
        from skbsearch.kb.store import SKB
        from skbsearch.synth.queries import synthesize_queries
        from skbsearch.synth.queries.report import report_rows, save
        from skbsearch.synth.queries.templates import load_templates

        start = time.perf_counter()
        skb = SKB.load(skb_dir)
        tpls = None if templates == "auto" else load_templates(Path(templates), skb)
        client = None
        if llm:
            from skbsearch.core.paths import cache_root
            from skbsearch.llm import ResponseCache, get_client

            client = get_client(llm, model=llm_model, cache=ResponseCache(cache_root() / "llm" / "responses.sqlite"))
        with stage_progress(disable=quiet or json_out) as progress:
            sq = synthesize_queries(
                skb, n, templates=tpls, llm=client, seed=seed, role=role, targets=target,
                max_hops=max_hops, max_answers=max_answers, max_properties=max_properties,
                split=_split(split), max_paths=max_paths, time_budget=time_budget, progress=progress,
            )
        stats = query_set_stats([q.text for q in sq.queries], [q.answers for q in sq.queries]).to_dict()
        report = save(sq, out, stats=stats)
        seconds = time.perf_counter() - start
        if json_out:
            print_json({**report, "out": str(out), "seconds": round(seconds, 2)})
            return
        if quiet:
            return
        if len(sq.queries) < n:
            err_console.print(f"note: {len(sq.queries)} of {n} queries (the grounded templates ran out of "
                              "distinct anchor/answer pairs)", highlight=False, markup=False)
        print_table(report_rows(report), title=f"Synthetic queries -> {out} ({seconds:.1f} s)")
        print_table([{"id": q.id, "query": q.text, "answers": len(q.answers)} for q in sq.queries[:3]],
                    title="examples")


def register_gazetteer(synth: typer.Typer) -> None:
    """Add ``skb synth gazetteer-skb``."""

    @synth.command("gazetteer-skb")
    @handle_errors
    def gazetteer_skb(
        src: Path = typer.Argument(..., help="Wikidata landmark JSONL (itemQ, itemLabel, countryQ, adminEntityQ, ...)."),
        out: Path = typer.Argument(..., help="Output SKB directory.", callback=artefact_dir_option("skb")),
        force: bool = typer.Option(False, "--force", help="Replace OUT if it is an SKB directory."),
        json_out: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="Print nothing but errors."),
    ) -> None:
        """Build the gazetteer SKB: landmark -located_in-> region -in_country-> country."""
        import numpy as np

        from skbsearch.enrich.gazetteer import load_wikidata_landmarks

        skb = load_wikidata_landmarks(src)
        skb.save(out, inputs=[src])
        types = np.bincount(skb.node_type_codes, minlength=len(skb.type_names))
        rels = np.bincount(skb.edge_rel, minlength=len(skb.schema.relations))
        info = {"out": str(out), "nodes": dict(zip(skb.type_names, types.tolist(), strict=True)),
                "edges": dict(zip(skb.schema.relations, rels.tolist(), strict=True)),
                "text_fields": skb.schema.text_fields}
        if json_out:
            print_json(info)
        elif not quiet:
            rows = [{"what": f"nodes: {k}", "count": v} for k, v in info["nodes"].items()]
            rows += [{"what": f"edges: {k}", "count": v} for k, v in info["edges"].items()]
            print_table(rows, title=f"Gazetteer SKB -> {out}")
