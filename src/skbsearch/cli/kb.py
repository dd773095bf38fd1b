"""`skb kb ...`: build an SKB from a source format, and inspect one (info, show, sql)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer
from rich.markup import escape
from rich.panel import Panel
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from skbsearch.cli.kb_profile import inferred, print_inferred
from skbsearch.cli.output import console, err_console, handle_errors, print_json, print_table
from skbsearch.core.errors import InputError
from skbsearch.core.outfile import check_output_dir

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

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


def _build_summary(skb: SKB, out: Path, seconds: float) -> dict[str, Any]:
    """What ``skb kb build`` reports: counts per type and relation, and the loader's notes."""
    summary: dict[str, Any] = {
        "out": str(out),
        "format": skb.meta.get("source", {}).get("format"),
        "nodes": skb.num_nodes,
        "edges": skb.num_edges,
        "seconds": round(seconds, 3),
        "node_types": _counts(skb.type_names, skb.node_type_codes),
        "relations": _counts(skb.schema.relations, skb.edge_rel),
    }
    for key in ("duplicates_dropped", "type_conflicts", "untyped_relations", "typing_relation"):
        if skb.meta.get(key):
            summary[key] = skb.meta[key]
    summary["inferred"] = inferred(skb)
    return summary


def _triples_progress(prog: Progress, task: Any) -> Any:
    """A callback counting the triples read on the spinner (minutes on a Wikidata5M-sized KG)."""
    seen = [0]

    def advance(n: int) -> None:
        seen[0] += n
        prog.update(task, description=f"reading triples: {seen[0]:,}")

    return advance


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
    split_names: Annotated[str | None, typer.Option(
        "--split-names", help="kg: a names column of 'name, definition' values is split into name "
        "and description: 'auto' (default: when most values have that shape), 'no', or the separator.")] = None,
    trust_pickles: Annotated[
        bool, typer.Option("--trust-pickles", help="STaRK: allow unpickling node_info.pkl (runs code!).")
    ] = False,
    force: Annotated[bool, typer.Option(
        "--force", help="Replace OUT if it is an SKB directory holding nothing but an SKB's own "
        "files (otherwise nothing is changed and the foreign files are named). OUT/indexes/ is "
        "kept: indexes of the old content are then refused on use, with the command that "
        "rebuilds them (listed after the build).")] = False,
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Build an SKB directory at OUT from SOURCE (written atomically)."""
    from skbsearch.kb.loaders import detect_format, load

    if out is None:
        if nodes is None or source is None:
            raise InputError("usage: skb kb build SOURCE OUT, or skb kb build OUT --nodes FILE [--edges FILE]")
        source, out = None, source
    inputs = [source, nodes, edges, Path(types) if types and Path(types).exists() else None]
    check_output_dir(out, inputs=inputs, field="OUT", kind="skb", force=force)
    attrs = tuple(a.strip() for a in attributes.split(",") if a.strip()) if attributes else ()
    t0 = time.perf_counter()
    with _progress(quiet) as prog:
        task = prog.add_task(f"loading {source or nodes}", total=None)
        fmt = format or detect_format(source, nodes)
        extra: dict[str, Any] = {"progress": _triples_progress(prog, task)} if fmt == "kg" else {}
        if split_names is not None:
            extra["split_names"] = split_names
        skb = load(
            source,
            fmt,
            nodes=nodes,
            edges=edges,
            attributes=attrs,
            default_type=default_type,
            types=types,
            dataset=dataset,
            trust_pickles=trust_pickles,
            **extra,
        )
        if skb.num_nodes == 0:
            src_meta = skb.meta.get("source", {})
            where = src_meta.get("nodes") or src_meta.get("path") or source or nodes
            raise InputError("no nodes found, so there is nothing to build; check the file "
                             "(and --format)", file=where)
        prog.update(task, description=f"writing {out}")
        skb.save(out, overwrite=True, inputs=inputs)
    summary = _build_summary(skb, out, time.perf_counter() - t0)
    kept = kept_indexes(out, skb.meta.get("content_hash"))
    if kept:
        summary["indexes_kept"] = kept
    _report_build(summary, out, json_out, quiet)


def _report_build(summary: dict[str, Any], out: Path, json_out: bool, quiet: bool) -> None:
    """Print what ``skb kb build`` built, and a note for each kept index of the old content."""
    if json_out:
        print_json(summary)
        return
    if quiet:
        return
    console.print(
        f"[green]built[/] {escape(str(out))}: {summary['nodes']:,} nodes, {summary['edges']:,} edges "
        f"({summary['format']}, {summary['seconds']} s)"
    )
    rows = [{"node type": k, "count": v} for k, v in summary["node_types"].items()]
    print_table(*_largest(rows, "count", 20, "node types"))
    print_inferred(summary["inferred"])
    for name, state in summary.get("indexes_kept", {}).items():
        if state.startswith("skb index"):
            err_console.print(f"note: kept {out / 'indexes' / name}, built from the previous "
                              f"content; rebuild it with '{state}' (until then it is refused)",
                              markup=False, highlight=False, soft_wrap=True)


def kept_indexes(skb_dir: Path, content_hash: str | None) -> dict[str, str]:
    """The index directories in ``SKB_DIR/indexes`` after a rebuild: ``{name: state}``, the
    state "current" (built from this content), "rebuilt on first use" (the linker's and name
    tables) or the ``skb index`` command that rebuilds a stale one."""
    from skbsearch.index.base import rebuild_command

    out: dict[str, str] = {}
    root = skb_dir / "indexes"
    if not root.is_dir():
        return out
    for d in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            m = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
            src, params = dict(m.get("source") or {}), dict(m.get("params") or {})
        except (OSError, ValueError, TypeError, AttributeError):
            continue
        if bool(content_hash) and src.get("skb_hash") == content_hash:
            out[d.name] = "current"
        elif src.get("role"):
            out[d.name] = "rebuilt on first use"
        else:
            try:
                out[d.name] = rebuild_command(str(m.get("kind") or d.name), skb_dir, d, src, params)
            except (TypeError, ValueError, KeyError):  # a damaged manifest: refused on use anyway
                out[d.name] = f"skb index {skb_dir} --kind {m.get('kind') or d.name} --force"
    return out


def _degree_stats(deg: np.ndarray) -> dict[str, float]:
    if len(deg) == 0:
        return {"mean": 0.0, "median": 0.0, "max": 0, "zero": 0}
    return {
        "mean": round(float(deg.mean()), 3),
        "median": float(np.median(deg)),
        "max": int(deg.max()),
        "zero": int(np.count_nonzero(deg == 0)),
    }


def _dominant_types(skb: SKB, ends: np.ndarray) -> list[tuple[str, float]]:
    """Per relation, the most common type at one end of its edges and that type's share."""
    n_types = max(len(skb.type_names), 1)
    n_rel = len(skb.schema.relations)
    key = skb.edge_rel.astype(np.int64) * n_types + skb.node_type_codes[ends].astype(np.int64)
    pairs, counts = np.unique(key, return_counts=True)
    rel, typ = pairs // n_types, pairs % n_types
    totals = np.bincount(rel, weights=counts, minlength=n_rel)
    best = np.full(n_rel, -1, np.int64)
    best_count = np.zeros(n_rel)
    for r, t, c in zip(rel.tolist(), typ.tolist(), counts.tolist(), strict=True):
        if c > best_count[r]:
            best[r], best_count[r] = t, c
    return [(skb.type_names[b] if b >= 0 else "-", float(best_count[r] / totals[r]) if totals[r] else 0.0)
            for r, b in enumerate(best.tolist())]


def kb_info(path: Path) -> dict[str, Any]:
    """Counts per type and relation, and degree statistics, of the SKB at ``path``."""
    from skbsearch.kb import SKB

    skb = SKB.load(path)
    n = skb.num_nodes
    deg = np.bincount(skb.edge_src, minlength=n) + np.bincount(skb.edge_dst, minlength=n)
    heads, tails = _dominant_types(skb, skb.edge_src), _dominant_types(skb, skb.edge_dst)
    raw_ids = skb.meta.get("relation_ids") or {}
    order = np.argsort(skb.edge_rel, kind="stable")
    bounds = np.searchsorted(skb.edge_rel[order], np.arange(len(skb.schema.relations) + 1))
    rels = []
    for r, name in enumerate(skb.schema.relations):
        sel = order[bounds[r]:bounds[r + 1]]
        src, dst = skb.edge_src[sel], skb.edge_dst[sel]
        u_src, out_deg = np.unique(src, return_counts=True)
        roles = skb.schema.relation_roles.get(name, [None, None])
        row = {
            "relation": name,
            "edges": int(len(sel)),
            "sources": int(len(u_src)),
            "targets": int(len(np.unique(dst))),
            "source type": roles[0] or "(mixed)",
            "target type": roles[1] or "(mixed)",
            "main source type": heads[r][0], "main source share": round(heads[r][1], 4),
            "main target type": tails[r][0], "main target share": round(tails[r][1], 4),
            "max out-degree": int(out_deg.max()) if len(out_deg) else 0,
        }
        if name in raw_ids:
            row["id"] = raw_ids[name]
        rels.append(row)
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
        "inferred": inferred(skb),
    }


def _share(name: str, share: float) -> str:
    return name if share >= 0.995 else f"{name} {share:.0%}"


def _largest(rows: list[dict[str, Any]], key: str, limit: int, title: str) -> tuple[list[dict[str, Any]], str]:
    """All rows (when they are fewer than ``limit`` or it is 0), or the ``limit`` with the
    largest ``key``, largest first, with a title saying how many of how many."""
    if limit <= 0 or len(rows) <= limit:
        return rows, title
    top = sorted(rows, key=lambda r: -r[key])[:limit]
    return top, f"{title}: the {limit} largest of {len(rows):,}"


def print_relations(rels: list[dict[str, Any]], ids: bool = False, title: str = "relations") -> None:
    """The relations table, readable at 80 columns: long names fold in their own wide
    column, the ends show each side's main type (with its share when not all), numbers
    never wrap; with ``ids``, raw ids (of an SKB imported from ids) on a dim line below."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    has_ids = any(r.get("id") for r in rels)
    title += " (raw ids: --ids)" if has_ids and not ids else ""
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, expand=False)
    table.add_column("relation", ratio=3, overflow="fold", min_width=16)
    table.add_column("edges", justify="right", no_wrap=True)
    table.add_column("from → to (main types)", ratio=2, overflow="fold", min_width=14)
    table.add_column("max out", justify="right", no_wrap=True)
    for r in rels:
        name = Text(r["relation"])
        if ids and r.get("id") and r["id"] != r["relation"]:
            name.append("\n" + r["id"], style="dim")
        ends = (f"{_share(r['main source type'], r['main source share'])} → "
                f"{_share(r['main target type'], r['main target share'])}")
        table.add_row(name, f"{r['edges']:,}", Text(ends), f"{r['max out-degree']:,}")
    console.print(table)


@kb_app.command("info")
@handle_errors
def info(path: DirArg, json_out: JsonOpt = False,
         ids: Annotated[bool, typer.Option("--ids", help="Show each relation's raw id "
                                                         "(of a KG imported from ids).")] = False,
         limit: Annotated[int, typer.Option(help="Rows of the type and relation tables, largest "
                                                 "first (0 = all; --json lists all).")] = 50) -> None:
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
    print_table(*_largest([{"node type": k, "count": v} for k, v in res["node_types"].items()],
                          "count", limit, "node types"))
    if res["relations"]:
        rels, title = _largest(res["relations"], "edges", limit, "relations")
        print_relations(rels, ids, title)
    if res["text_fields"] or res["attributes"]:
        console.print(f"text fields: {', '.join(res['text_fields']) or '-'}", markup=False)
        attrs = ", ".join(f"{k} ({v})" for k, v in res["attributes"].items())
        console.print(f"attributes: {attrs or '-'}", markup=False)
    print_inferred(res["inferred"])


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
