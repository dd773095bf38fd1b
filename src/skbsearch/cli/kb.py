"""`skb kb ...`: build an SKB from a source format, and inspect one (info, show, sql)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.markup import escape
from rich.panel import Panel
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from skbsearch.atomic import check_replaceable
from skbsearch.cli.output import console, err_console, handle_errors, print_json, print_table
from skbsearch.errors import InputError

kb_app = typer.Typer(help="Build and inspect semi-structured knowledge bases.", no_args_is_help=True)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")]
DirArg = Annotated[Path, typer.Argument(help="An SKB directory (from 'skb kb build').")]


def _progress(quiet: bool) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
        disable=quiet,
    )


def _counts(names: list[str], codes: np.ndarray) -> dict[str, int]:
    c = np.bincount(codes.astype(np.int64), minlength=len(names)) if len(names) else []
    return {n: int(c[i]) for i, n in enumerate(names)}


@kb_app.command("build")
@handle_errors
def build(
    source: Annotated[Path | None, typer.Argument(help="Source dir or file (omit with --nodes).")] = None,
    out: Annotated[Path | None, typer.Argument(help="Output SKB directory.")] = None,
    format: Annotated[
        str | None, typer.Option("--format", "-f", help="jsonl|csv|triples|stark|kg|rdf (default: guess). "
                                                  "kg: a directory of split triple files (train/valid/test) "
                                                  "with entity names and relation texts, as public KGs ship; "
                                                  "rdf: an .nt/.ttl/.nq/.trig/.rdf file (extra 'rdf').")
    ] = None,
    nodes: Annotated[Path | None, typer.Option(help="Nodes file (jsonl/csv).")] = None,
    edges: Annotated[Path | None, typer.Option(help="Edges file (jsonl/csv).")] = None,
    attributes: Annotated[
        str | None, typer.Option(help="Comma-separated keys/columns to keep as attributes (jsonl/csv).")
    ] = None,
    default_type: Annotated[str | None, typer.Option(help="Type for nodes without one (jsonl/csv).")] = None,
    types: Annotated[
        str | None,
        typer.Option(help="Triples: JSON file mapping relation to (head_type, tail_type), or 'metaqa'. "
                          "kg: a file of id<TAB>type lines (overrides the inferred types)."),
    ] = None,
    dataset: Annotated[str | None, typer.Option(help="STaRK: amazon|mag|prime (default: guess).")] = None,
    trust_pickles: Annotated[
        bool, typer.Option("--trust-pickles", help="STaRK: allow unpickling node_info.pkl (runs code!).")
    ] = False,
    force: Annotated[bool, typer.Option(
        "--force", help="Replace OUT if it is an SKB directory (nothing else is ever replaced).")] = False,
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Build an SKB directory at OUT from SOURCE (written atomically)."""
    from skbsearch.kb.loaders import load

    if out is None:
        if nodes is None or source is None:
            raise InputError("usage: skb kb build SOURCE OUT, or skb kb build OUT --nodes FILE [--edges FILE]")
        source, out = None, source
    inputs = [source, nodes, edges, Path(types) if types and Path(types).exists() else None]
    check_replaceable(out, "skb", inputs=inputs)
    if out.exists() and not force:
        raise FileExistsError(f"{out} exists; pass --force to replace it")
    attrs = tuple(a.strip() for a in attributes.split(",") if a.strip()) if attributes else ()
    t0 = time.perf_counter()
    with _progress(quiet) as prog:
        task = prog.add_task(f"loading {source or nodes}", total=None)
        skb = load(
            source,
            format,
            nodes=nodes,
            edges=edges,
            attributes=attrs,
            default_type=default_type,
            types=types,
            dataset=dataset,
            trust_pickles=trust_pickles,
        )
        if skb.num_nodes == 0:
            src_meta = skb.meta.get("source", {})
            where = src_meta.get("nodes") or src_meta.get("path") or source or nodes
            raise InputError("no nodes found, so there is nothing to build; check the file "
                             "(and --format)", file=where)
        prog.update(task, description=f"writing {out}")
        skb.save(out, overwrite=True, inputs=inputs)
    summary: dict[str, Any] = {
        "out": str(out),
        "format": skb.meta.get("source", {}).get("format"),
        "nodes": skb.num_nodes,
        "edges": skb.num_edges,
        "seconds": round(time.perf_counter() - t0, 3),
        "node_types": _counts(skb.type_names, skb.node_type_codes),
        "relations": _counts(skb.schema.relations, skb.edge_rel),
    }
    for key in ("duplicates_dropped", "type_conflicts", "untyped_relations"):
        if skb.meta.get(key):
            summary[key] = skb.meta[key]
    if json_out:
        print_json(summary)
    elif not quiet:
        console.print(
            f"[green]built[/] {escape(str(out))}: {summary['nodes']:,} nodes, {summary['edges']:,} edges "
            f"({summary['format']}, {summary['seconds']} s)"
        )
        rows = [{"node type": k, "count": v} for k, v in summary["node_types"].items()]
        print_table(rows, title="node types")


def _degree_stats(deg: np.ndarray) -> dict[str, float]:
    if len(deg) == 0:
        return {"mean": 0.0, "median": 0.0, "max": 0, "zero": 0}
    return {
        "mean": round(float(deg.mean()), 3),
        "median": float(np.median(deg)),
        "max": int(deg.max()),
        "zero": int(np.count_nonzero(deg == 0)),
    }


def kb_info(path: Path) -> dict[str, Any]:
    """Counts per type and relation, and degree statistics, of the SKB at ``path``."""
    from skbsearch.kb import SKB

    skb = SKB.load(path)
    n = skb.num_nodes
    deg = np.bincount(skb.edge_src, minlength=n) + np.bincount(skb.edge_dst, minlength=n)
    rels = []
    for r, name in enumerate(skb.schema.relations):
        m = skb.edge_rel == r
        src, dst = skb.edge_src[m], skb.edge_dst[m]
        out_deg = np.bincount(src, minlength=n)[np.unique(src)] if len(src) else np.zeros(0, np.int64)
        roles = skb.schema.relation_roles.get(name, [None, None])
        rels.append(
            {
                "relation": name,
                "edges": int(m.sum()),
                "sources": int(len(np.unique(src))),
                "targets": int(len(np.unique(dst))),
                "source type": roles[0] or "(mixed)",
                "target type": roles[1] or "(mixed)",
                "max out-degree": int(out_deg.max()) if len(out_deg) else 0,
            }
        )
    return {
        "path": str(path),
        "nodes": n,
        "edges": skb.num_edges,
        "node_types": _counts(skb.type_names, skb.node_type_codes),
        "relations": rels,
        "degree": _degree_stats(deg),
        "text_fields": list(skb.schema.text_fields),
        "attributes": dict(skb.schema.attributes),
        "source": skb.meta.get("source"),
    }


@kb_app.command("info")
@handle_errors
def info(path: DirArg, json_out: JsonOpt = False) -> None:
    """Counts per node type and relation, degree statistics, fields."""
    res = kb_info(path)
    if json_out:
        print_json(res)
        return
    d = res["degree"]
    console.print(
        f"[bold]{escape(str(path))}[/]: {res['nodes']:,} nodes, {res['edges']:,} edges; degree (in+out) "
        f"mean {d['mean']}, median {d['median']}, max {d['max']}, isolated {d['zero']:,}"
    )
    types = [{"node type": k, "count": v} for k, v in res["node_types"].items()]
    print_table(types, title="node types")
    if res["relations"]:
        print_table(res["relations"], title="relations")
    if res["text_fields"] or res["attributes"]:
        console.print(f"text fields: {', '.join(res['text_fields']) or '-'}", markup=False)
        attrs = ", ".join(f"{k} ({v})" for k, v in res["attributes"].items())
        console.print(f"attributes: {attrs or '-'}", markup=False)


def kb_show(path: Path, node_id: str, limit: int = 20) -> dict[str, Any]:
    """One node: fields, its rendered document, and neighbours grouped by relation."""
    from skbsearch.documents import DocumentRenderer
    from skbsearch.kb import SKB

    skb = SKB.load(path)
    if not skb.has_node(node_id):
        names = skb.column("name")
        hits = [skb.ids[i] for i, nm in enumerate(names) if nm == node_id][:5]
        hint = f"; nodes named {node_id!r} have ids {hits}" if hits else ""
        raise InputError(f"no node with id {node_id!r} in {path}{hint}", field="id")
    i = int(skb.index_of(node_id))
    node = skb.node(i)
    doc = DocumentRenderer(add_rel=True).render(skb, i)
    names, types, codes = skb.column("name"), skb.type_names, skb.node_type_codes
    neighbours: dict[str, Any] = {}
    for base in skb.schema.relations:
        for rel in (base, base + "^-1"):
            offsets, nb = skb.graph.neighbors([i], [rel], "out")
            if len(nb) == 0:
                continue
            neighbours[rel] = {
                "count": int(len(nb)),
                "nodes": [
                    {"id": skb.ids[int(j)], "name": names[int(j)], "type": types[int(codes[int(j)])]}
                    for j in nb[: limit if limit > 0 else None]
                ],
            }
    return {
        "id": node.id,
        "type": node.type,
        "name": node.name,
        "fields": node.fields,
        "attributes": node.attributes,
        "document": doc,
        "neighbors": neighbours,
    }


def _label(x: dict[str, str]) -> str:
    if not x["name"] or x["name"] == x["id"]:
        return x["id"]
    return f"{x['name']} (id {x['id']})"


@kb_app.command("show")
@handle_errors
def show(
    path: DirArg,
    node_id: Annotated[str, typer.Argument(help="The node's id.")],
    limit: Annotated[int, typer.Option(help="Neighbours listed per relation (0 = all).")] = 20,
    json_out: JsonOpt = False,
) -> None:
    """Show one node: its document (with relations) and neighbours by relation."""
    res = kb_show(path, node_id, limit)
    if json_out:
        print_json(res)
        return
    title = escape(f"{res['type']} {res['id']}")
    console.print(Panel(escape(res["document"]), title=title, expand=False), highlight=False)
    rows = []
    for rel, nb in res["neighbors"].items():
        shown = ", ".join(_label(x) for x in nb["nodes"])
        more = nb["count"] - len(nb["nodes"])
        shown += f" (+{more} more)" if more else ""
        rows.append({"relation": rel, "count": nb["count"], "neighbours": shown})
    if rows:
        print_table(rows, title="neighbours")


@kb_app.command("sql")
@handle_errors
def sql(
    path: DirArg,
    query: Annotated[str, typer.Argument(help="SQL over views 'nodes' and 'edges' (DuckDB).")],
    limit: Annotated[int, typer.Option(help="Rows shown (0 = all).")] = 20,
    allow_files: Annotated[bool, typer.Option(
        "--allow-files", help="Let the SQL read and write files (DuckDB external access); "
                              "off by default.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Run your own SQL over the SKB's nodes and edges tables (no file access by default)."""
    from skbsearch.kb import SKB

    table = SKB.load(path).sql(query, allow_files=allow_files)
    total = table.num_rows
    shown = table if limit <= 0 else table.slice(0, limit)
    rows = shown.to_pylist()
    if json_out:
        print_json({"columns": table.column_names, "rows": rows, "num_rows": total, "truncated": len(rows) < total})
        return
    title = f"{len(rows)} of {total:,} rows" if len(rows) < total else f"{total:,} rows"
    cols = table.column_names
    print_table(rows, title=title, columns=cols)


def register(app: typer.Typer) -> None:
    """Add the ``kb`` command group to ``app``."""
    app.add_typer(kb_app, name="kb")
