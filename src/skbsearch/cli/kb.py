"""`skb kb ...`: build an SKB from a source format, and inspect one (info, show, sql)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.panel import Panel
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from skbsearch.cli.kb_inspect import (
    kb_info,
    kb_show,
    largest_rows,
    node_label,
    print_relations,
    type_counts,
)
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
        "node_types": type_counts(skb.type_names, skb.node_type_codes),
        "relations": type_counts(skb.schema.relations, skb.edge_rel),
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
    print_table(*largest_rows(rows, "count", 20, "node types"))
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
    print_table(*largest_rows([{"node type": k, "count": v} for k, v in res["node_types"].items()],
                          "count", limit, "node types"))
    if res["relations"]:
        rels, title = largest_rows(res["relations"], "edges", limit, "relations")
        print_relations(rels, ids, title)
    if res["text_fields"] or res["attributes"]:
        console.print(f"text fields: {', '.join(res['text_fields']) or '-'}", markup=False)
        attrs = ", ".join(f"{k} ({v})" for k, v in res["attributes"].items())
        console.print(f"attributes: {attrs or '-'}", markup=False)
    print_inferred(res["inferred"])


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
        shown = ", ".join(node_label(x) for x in nb["nodes"])
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
