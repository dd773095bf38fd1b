"""`skb kb update` and `skb kb compact`: change an SKB by id as new generations."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from skbsearch.cli.kb import DirArg, JsonOpt, QuietOpt, kb_app
from skbsearch.cli.output import console, handle_errors, print_json

FileOpt = Annotated[Path | None, typer.Option()]


@handle_errors
def update_cmd(
    path: DirArg,
    nodes: Annotated[Path | None, typer.Option(help="Nodes to add or replace (jsonl/csv, as 'skb kb build').")] = None,
    edges: Annotated[Path | None, typer.Option(help="Edges to add (jsonl/csv).")] = None,
    delete_nodes: Annotated[Path | None, typer.Option(
        "--delete-nodes", help="Node ids to delete, one a line, matched exactly (split at \\n only, nothing trimmed; their edges go too).")] = None,
    delete_edges: Annotated[Path | None, typer.Option(
        "--delete-edges", help="Edges to delete (jsonl/csv: source, relation, target).")] = None,
    attributes: Annotated[str | None, typer.Option(help="Comma-separated keys/columns to keep as attributes.")] = None,
    default_type: Annotated[str | None, typer.Option(help="Type for nodes without one.")] = None,
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Upsert and delete nodes and edges by id, as one new generation (no rebuild)."""
    from skbsearch.index.live import stale_indexes
    from skbsearch.kb.generations import current
    from skbsearch.kb.update import update

    t0 = time.perf_counter()
    attrs = tuple(a.strip() for a in attributes.split(",") if a.strip()) if attributes else ()
    res = update(path, nodes=nodes, edges=edges, delete_nodes=delete_nodes, delete_edges=delete_edges,
                 attributes=attrs, default_type=default_type).to_dict()
    res["seconds"] = round(time.perf_counter() - t0, 3)
    gen = current(path)
    res["stale_indexes"] = stale_indexes(path, gen.lineage, gen.content_hash) if gen is not None else []
    if json_out:
        print_json(res)
        return
    for s in res["stale_indexes"]:  # even with --quiet: a stale index is never silent
        console.print(f"[yellow]warning:[/] {escape(s['path'])} is stale: {escape(s['why'])}; "
                      f"rebuild it with '{escape(s['rebuild'])}'", highlight=False)
    if not quiet:
        console.print(
            f"[green]generation {res['generation']}[/] of {escape(str(path))}: {res['upserted']:,} nodes "
            f"upserted, {res['deleted_nodes']:,} deleted, {res['added_edges']:,} edges added, "
            f"{res['deleted_edges']:,} deleted ({len(res['segments'])} pending segment(s); "
            f"{res['seconds']} s)")


@handle_errors
def compact_cmd(path: DirArg, json_out: JsonOpt = False, quiet: QuietOpt = False) -> None:
    """Fold the pending segments into a new base (a new generation; same data)."""
    from skbsearch.index.live import compact_indexes
    from skbsearch.kb.update import compact

    t0 = time.perf_counter()
    res = compact(path, before_commit=compact_indexes).to_dict()
    res["seconds"] = round(time.perf_counter() - t0, 3)
    if json_out:
        print_json(res)
    elif not quiet:
        console.print(f"[green]generation {res['generation']}[/] of {escape(str(path))}: compacted "
                      f"({res['seconds']} s)")


def register(app: typer.Typer) -> None:
    """Add ``update`` and ``compact`` to the ``kb`` command group."""
    kb_app.command("update")(update_cmd)
    kb_app.command("compact")(compact_cmd)
