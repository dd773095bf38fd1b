"""`skb index` (build an index over an SKB) and `skb search` (ranked nodes with evidence)."""

from __future__ import annotations

import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from skbsearch.cli.output import (
    DeviceOpt,
    PrecisionOpt,
    apply_device,
    console,
    err_console,
    handle_errors,
    print_json,
    stage_progress,
)
from skbsearch.core.atomic import recover_dir
from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.core.outfile import check_output_dir
from skbsearch.core.progress import ProgressFn
from skbsearch.index import available_kinds, get_kind
from skbsearch.index.base import build_hint, read_manifest

if TYPE_CHECKING:
    from skbsearch.core.stage import SpecStage
    from skbsearch.kb.store import SKB

_KINDS = "|".join(available_kinds())

SkbArg = Annotated[Path, typer.Argument(help="An SKB directory (from 'skb kb build').")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")]


def parse_field_weights(values: list[str] | None, flag: str = "--field-weights") -> dict[str, float]:
    """``["title=2", "description=1,reviews=0.5"]`` -> ``{"title": 2.0, ...}`` (``flag``: the
    option named in an error)."""
    out: dict[str, float] = {}
    for item in values or []:
        for pair in item.split(","):
            if not pair.strip():
                continue
            name, sep, value = pair.partition("=")
            try:
                if not sep or not name.strip():
                    raise ValueError
                out[name.strip()] = float(value)
            except ValueError:
                raise InputError(f"expected FIELD=NUMBER (e.g. title=2), got {pair!r}",
                                 field=flag) from None
    return out


def default_index_dir(skb_dir: Path, kind_name: str) -> Path:
    """``SKB_DIR/indexes/<kind>``: where ``skb index`` writes and ``skb search`` looks."""
    return skb_dir / "indexes" / get_kind(kind_name).index_dir_name


def index_cmd(
    skb_dir: SkbArg,
    kind: Annotated[str, typer.Option("--kind", help=f"Index kind: {_KINDS}.")] = "bm25",
    fields: Annotated[str | None, typer.Option(
        help="Comma-separated node columns indexed as separate weighted fields "
             "(default: the whole rendered node document).")] = None,
    field_weights: Annotated[list[str] | None, typer.Option(
        "--field-weights", help="FIELD=WEIGHT, repeatable or comma-separated (default 1).")] = None,
    add_rel: Annotated[bool | None, typer.Option(
        "--add-rel/--no-add-rel",
        help="Include related nodes' names (default: on, as a second field 'relations'; "
             "with --fields or --no-add-rel, off unless given).")] = None,
    rel_weight: Annotated[float | None, typer.Option(
        "--rel-weight", min=0.0, help="Weight of the relations field (default 1.0, as the document's).")] = None,
    combine: Annotated[str | None, typer.Option(
        help="bm25: how fields make one score: sum (each field's BM25 added; default) | bm25f "
             "(term frequencies added across fields, saturated once: better for questions "
             "that name a related entity, worse for name look-ups; docs/howto-pipelines.md).")] = None,
    field_b: Annotated[list[str] | None, typer.Option(
        "--field-b", help="bm25: FIELD=B, a field's own length normalisation (default: --b; "
                          "with --combine bm25f on the default index: relations=0.3).")] = None,
    out: Annotated[Path | None, typer.Option(
        help="Index directory (default SKB_DIR/indexes/KIND, which pipelines read; another one "
             "is named in a pipeline as KIND(index='DIR')).")] = None,
    k1: Annotated[float, typer.Option(help="BM25 k1.")] = 1.5,
    b: Annotated[float, typer.Option(help="BM25 b.")] = 0.75,
    method: Annotated[str, typer.Option(help="BM25 variant: lucene|robertson|atire|bm25l|bm25+.")] = "lucene",
    stemmer: Annotated[str, typer.Option(help="Stemmer language (english, ...) or none.")] = "english",
    encoder: Annotated[str, typer.Option(
        help="dense/multivector: 'minilm' (packaged all-MiniLM-L6-v2), 'static' (distilled "
             "from it; CPU, hundreds of times faster, lower quality: docs/guides/dense-cpu.md), a "
             "sentence-transformers or model2vec directory, or a hub name.")] = "minilm",
    backend: Annotated[str, typer.Option(
        help="dense: numpy (exact) | torch (exact; torch matmul + top-k, on the GPU when "
             "searched there) | faiss-flat | faiss-hnsw.")] = "numpy",
    force: Annotated[bool, typer.Option(
        "--force", help="Replace an existing index (nothing else is ever replaced).")] = False,
    engine: Annotated[str, typer.Option(
        help="local (this process) | ray (Ray Data over Parquet shards; bm25 and dense; "
             "extra \\[distributed]).")] = "local",
    ray_address: Annotated[str | None, typer.Option(
        "--ray-address", help="engine ray: a Ray cluster address (default: a local Ray).")] = None,
    shard_rows: Annotated[int, typer.Option(
        "--shard-rows", min=1, help="engine ray: node rows per Parquet shard.")] = 50_000,
    device: DeviceOpt = None,
    precision: PrecisionOpt = None,
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Build an index over every node of an SKB (written atomically); with a BM25 index, the
    graph stage's name tables too (SKB_DIR/indexes/names, linker), so no query builds them."""
    device, precision = _check_engine(kind, engine, device, precision)
    out = out or default_index_dir(skb_dir, kind)
    check_output_dir(out, inputs=[skb_dir], field="--out", kind="index", force=force)
    field_list = [f.strip() for f in fields.split(",") if f.strip()] if fields else None
    options = _build_options(kind, field_list, add_rel, rel_weight)
    options.update(_kind_params(kind, k1=k1, b=b, method=method, stemmer=stemmer, encoder=encoder,
                                backend=backend, device=device, precision=precision))
    options.update(_bm25_only(kind, combine, field_b))
    t0 = time.perf_counter()
    with stage_progress(disable=quiet or json_out) as progress:
        skb, index = _build_index(skb_dir, kind, engine, ray_address, shard_rows, progress,
                                  fields=field_list, field_weights=parse_field_weights(field_weights),
                                  **options)
        progress("saving", 0, 1)
        index.save(out, overwrite=True)
        progress("saving", 1, 1)
        # the name tables live in the SKB: only beside its default index (an index built
        # elsewhere with --out leaves the SKB as it was)
        default = out.absolute() == default_index_dir(skb_dir, kind).absolute()
        tables = _graph_tables(skb, kind, progress) if default else []
    summary = {"kind": kind, "engine": engine, "path": str(out), "num_docs": index.num_docs,
               "params": getattr(index, "params", {}), "seconds": round(time.perf_counter() - t0, 2),
               "built_on": getattr(index, "built_on", None), "graph_tables": tables}
    _report_index(summary, index, skb_dir, out, json_out=json_out, quiet=quiet)


def _bm25_only(kind: str, combine: str | None, field_b: list[str] | None) -> dict[str, Any]:
    """``--combine`` / ``--field-b`` as build options (BM25 only; refused with another kind)."""
    if kind != "bm25":
        if combine is not None or field_b:
            raise InputError("--combine and --field-b are BM25 settings; use them with --kind bm25",
                             field="--combine" if combine is not None else "--field-b")
        return {}
    options: dict[str, Any] = {}
    if combine is not None:
        options["combine"] = combine
    parsed_b = parse_field_weights(field_b, "--field-b")
    if parsed_b:
        options["field_b"] = parsed_b
    return options


def _report_index(summary: dict[str, Any], index: Any, skb_dir: Path, out: Path, *,
                  json_out: bool, quiet: bool) -> None:
    """Print what ``skb index`` built: JSON, or a line plus how to name a non-default index
    and what the relation lines weigh (the per-SKB calibration's choice)."""
    kind = summary["kind"]
    choice = (getattr(index, "source", None) or {}).get("rel_weight_choice")
    if choice:
        summary["rel_weight_choice"] = choice
    if json_out:
        print_json(summary)
        return
    if quiet:
        return
    console.print(f"[green]built[/] {kind} index of {index.num_docs} documents at {escape(str(out))} "
                  f"in {summary['seconds']} s")
    if out.absolute() != default_index_dir(skb_dir, kind).absolute():
        console.print(f"pipelines read SKB_DIR/indexes/{kind} by default; name this one as "
                      f"-p \"{get_kind(kind).stage_name}(index='{out}')\"", markup=False,
                      highlight=False, soft_wrap=True)
    if choice:
        console.print(f"relation lines weigh {choice['weight']:g}: {choice['reason']}"
                      + (f" (MRR by weight: {choice['mrr']})" if choice["mrr"] else ""),
                      markup=False, highlight=False, soft_wrap=True)


def _check_engine(kind: str, engine: str, device: str | None,
                  precision: str | None) -> tuple[str | None, str | None]:
    """Refuse an engine that cannot build ``kind``; apply (local) or check (ray) the device."""
    from skbsearch.core.devices import check_device_name, check_precision_name

    get_kind(kind).check_engine(engine)
    if engine == "ray":  # the GPUs are the cluster's: only the names are checked here
        return check_device_name(device), check_precision_name(precision)
    apply_device(device, precision)
    return device, precision


def _kind_params(kind: str, *, k1: float, b: float, method: str, stemmer: str, encoder: str,
                 backend: str, device: str | None, precision: str | None) -> dict[str, Any]:
    """The build parameters of one index kind (BM25's, or the encoder's and its device)."""
    if kind == "bm25":
        return {"k1": k1, "b": b, "method": method, "stemmer": stemmer}
    if kind not in ("dense", "multivector"):
        return {}
    from skbsearch.encoders import default_cache_dir

    params = {"encoder": encoder, "cache": default_cache_dir(), "device": device,
              "precision": precision}
    if kind == "dense":
        params["backend"] = backend
    return params


def _build_options(kind: str, field_list: list[str] | None, add_rel: bool | None,
                   rel_weight: float | None) -> dict[str, Any]:
    """``add_rel`` (and ``rel_weight``): a BM25 build (on either engine) gets the default
    relation field unless ``--fields`` or ``--no-add-rel`` say otherwise; other builds only
    when asked."""
    if kind == "bm25":
        return {"add_rel": None if add_rel is None and not field_list else bool(add_rel),
                "rel_weight": rel_weight}
    return {"add_rel": bool(add_rel)}


def _graph_tables(skb: SKB, kind: str, progress: ProgressFn) -> list[str]:
    """With a BM25 index (what the graph stage reads), the graph stage's saved name lookups
    too, so that its first query does not build them; their directories."""
    from skbsearch.retrieve.graph.tables import build_graph_tables

    if kind != "bm25" or not skb.num_edges:
        return []
    progress("graph name tables", 0, 1)
    dirs = build_graph_tables(skb, notify=lambda msg: err_console.print(msg, markup=False, highlight=False))
    progress("graph name tables", 1, 1)
    return [str(d) for d in dirs]


def _build_index(skb_dir: Path, kind: str, engine: str, ray_address: str | None, shard_rows: int,
                 progress: ProgressFn, **options: Any) -> tuple[Any, Any]:
    """Load the SKB and build the index of ``kind`` over it, here or on Ray: ``(skb, index)``."""
    from skbsearch.kb.store import SKB

    progress("loading SKB", 0, 0)
    skb = SKB.load(skb_dir)
    progress("loading SKB", 1, 1)
    # one registration builds the kind on either engine, from the same options
    index = get_kind(kind).build(skb, engine=engine, address=ray_address, shard_rows=shard_rows,
                                 progress=progress, **options)
    return skb, index


def search_cmd(
    skb_dir: SkbArg,
    query: Annotated[str, typer.Argument(help="The query text.")],
    k: Annotated[int, typer.Option("-k", "--k", help="Number of results.")] = 10,
    retriever: Annotated[str | None, typer.Option(
        help=f"Deprecated (one release): the index kind to search ({_KINDS}; default bm25); "
             "it prints the same search as a pipeline, -p \"KIND(...)\".")] = None,
    index_dir: Annotated[Path | None, typer.Option(
        "--index", help="Index directory (default SKB_DIR/indexes/RETRIEVER); with -p, name it "
        "in the pipeline instead: bm25(index='DIR').")] = None,
    types: Annotated[list[str] | None, typer.Option(
        "--type", help="Only nodes of these types (repeatable or comma-separated).")] = None,
    where: Annotated[str | None, typer.Option(
        help="Only nodes matching this SQL predicate on node columns, e.g. \"price < 20\".")] = None,
    evidence: Annotated[int, typer.Option(help="Evidence lines per result (0: none).")] = 2,
    pipeline: Annotated[str | None, typer.Option(
        "--pipeline", "-p", help="A pipeline spec (default: bm25); for mixed questions "
        "(relations + words) use \"(bm25 + graph) % 20\" (docs/howto-pipelines.md, 'skb stages').")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Search an SKB: ranked nodes (rank, id, type, name, score) with evidence lines."""
    from skbsearch.cli.stages import search_with_pipeline

    if k < 1:
        raise InputError(f"k must be >= 1, got {k}", field="-k")
    if pipeline:
        if index_dir is not None:
            raise InputError("--index names the index of one retriever; in a pipeline name it "
                             f"as a stage parameter, e.g. -p \"{retriever or 'bm25'}(index='{index_dir}')\"",
                             field="--index")
        search_with_pipeline(skb_dir, query, pipeline, k=k, types=types, where=where,
                             evidence=evidence, json_out=json_out)
        return
    stage = retriever_stage(skb_dir, retriever or "bm25", k=k, types=types, where=where,
                            index_dir=index_dir)
    if retriever is not None or index_dir is not None:
        err_console.print(f"note: --retriever and --index are deprecated (one release); the same "
                          f"search as a pipeline: -p {shlex.quote(repr(stage))}",
                          markup=False, highlight=False, soft_wrap=True)
    try:
        search_with_pipeline(skb_dir, query, stage, k=k, types=None, where=None,
                             evidence=evidence, json_out=json_out)
    except InputError as e:
        if e.field != "where":
            raise
        raise InputError(e.reason, file=e.file, line=e.line, field="--where") from None


def retriever_stage(skb_dir: Path, kind: str, *, k: int, types: list[str] | None,
                    where: str | None, index_dir: Path | None) -> SpecStage:
    """The pipeline stage ``skb search --retriever KIND`` runs (its ``repr`` is the spec):
    the kind's retriever over its saved index (``--index`` or ``SKB_DIR/indexes/KIND``), with
    the filters inside it. A missing index is an error with the command that builds it."""
    from skbsearch.retrieve.filters import parse_types
    from skbsearch.stages import stage

    spec = get_kind(kind)
    path = index_dir or default_index_dir(skb_dir, kind)
    if not path.exists() and not recover_dir(path):
        raise ArtefactError(f"{path}: no {kind} index there; {build_hint(kind, skb_dir, index_dir)}")
    params: dict[str, Any] = {"k": k, "types": parse_types(types), "where": where}
    if index_dir is not None:
        params["index"] = str(index_dir)
    built = stage(spec.stage_name, **params)
    encoder = (read_manifest(path).params or {}).get("encoder")
    if encoder and encoder != "static":  # a static encoder loads in a fraction of a second
        err_console.print(f"note: loading the {escape(str(encoder))} encoder (seconds on every call); "
                          f"'skb serve {escape(str(skb_dir))}' keeps it loaded", highlight=False)
    return built


def register(app: typer.Typer) -> None:
    """Add ``skb index`` and ``skb search`` to ``app``."""
    app.command("index")(handle_errors(index_cmd))
    app.command("search")(handle_errors(search_cmd))
