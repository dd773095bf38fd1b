"""`skb stages` (the stage registry) and `skb search --pipeline` (one query through a spec)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from skbsearch.cli.output import console, handle_errors, print_json, print_table, text

if TYPE_CHECKING:
    from skbsearch.core.operators import StageBase


def stages_cmd(
    name: Annotated[str | None, typer.Argument(help="Show one stage in detail.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON for machines.")] = False,
) -> None:
    """List the registered pipeline stages with their parameters (the pipeline language)."""
    from skbsearch.stages import available_stages, describe

    infos = [describe(name)] if name else [describe(n) for n in available_stages()]
    if json_out:
        print_json({"stages": infos})
        return
    rows = []
    for info in infos:
        params = ", ".join(
            f"{p['name']}: {p['type']}" + ("" if p["required"] else f" = {p['default_spec']}")
            for p in info["params"])
        alias = f" (alias {', '.join(info['aliases'])})" if info["aliases"] else ""
        rows.append({"stage": info["name"] + alias, "kind": info["category"]
                     + (", trainable" if info["trainable"] else ""),
                     "parameters": params, "what it does": info["doc"]})
    print_table(rows, title="registered stages: compose with >> (chain), + (score-aware fusion; rrf(a, b) for RRF), "
                            "% K (top K); e.g. \"bm25 + dense >> cross-encoder(model='ce/') % 10\"")


def search_with_pipeline(skb_dir: Path, query: str, spec: str | StageBase, *, k: int,
                         types: list[str] | None, where: str | None, evidence: int,
                         json_out: bool) -> None:
    """``skb search``: one query through a spec (or stage objects), with each result's evidence;
    ``types`` and ``where`` narrow its results."""
    from skbsearch.core.operators import Pipeline
    from skbsearch.core.types import Query
    from skbsearch.kb.store import SKB
    from skbsearch.retrieve.filters import NodeFilter, parse_types
    from skbsearch.stages import StageContext, pipeline
    from skbsearch.stages.explain import explain
    from skbsearch.stages.fusion import FilterStage

    kb = SKB.load(skb_dir)
    ctx = StageContext(kb)
    stage = pipeline(spec, ctx)
    flt = NodeFilter(parse_types(types), where)
    if not flt.is_empty:
        stage = Pipeline(stage, FilterStage(ctx, types=flt.types, where=flt.where))
    q = Query("q0", query)
    hits = stage([q]).ranked("q0")[:k]
    rows: list[dict[str, Any]] = []
    for rank, (doc_id, score) in enumerate(hits, start=1):
        known = kb.has_node(doc_id)
        node = kb.node(doc_id) if known else None
        ev = explain(stage, q, doc_id, max_lines=evidence) if known else []
        rows.append({"rank": rank, "id": doc_id, "type": node.type if node else "",
                     "name": node.name if node else "", "score": float(score), "evidence": ev})
    if json_out:
        print_json({"query": query, "pipeline": repr(stage), "k": k, "results": rows})
        return
    if not rows:
        console.print(text(f"no results for {query!r}"), highlight=False)
        return
    cols = ["rank", "id", "type", "name", "score"] + (["evidence"] if evidence > 0 else [])
    print_table([{**r, "evidence": "\n".join(r["evidence"])} for r in rows],
                title=f"{stage!r}: {query!r}", columns=cols)


def register(app: typer.Typer) -> None:
    """Add ``skb stages`` to ``app``."""
    app.command("stages")(handle_errors(stages_cmd))
