"""Semantic graphs from AMR in PENMAN notation, for users who have an AMR parser.

G-RAG parses ``"question: <question> <document>"`` with an AMR parser (AMRBART in the
paper). No AMR parser runs offline here, so users bring the parses: either one file per
question–document pair (``<dir>/<qid>/<docid>.amr``), or a JSONL file with one record a
pair (``{"qid": ..., "docid": ..., "amr": "(q / question ...)"}``). A text holding several
graphs (a multi-sentence parse) becomes their disjoint union.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from skbsearch.core.errors import InputError
from skbsearch.core.jsonl import iter_jsonl
from skbsearch.core.lazy import optional_module
from skbsearch.semgraph.concepts import ROOT_CONCEPT, ConceptGraph

#: File suffixes read by :func:`load_penman_dir`.
PENMAN_SUFFIXES = (".amr", ".penman", ".txt")


def _penman():  # noqa: ANN202 - module object
    return optional_module("penman", "penman", "gnn", "Reading AMR graphs (PENMAN)")


def _strip_constant(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def graphs_to_concept_graph(
    graphs: Iterable[object], root_concept: str = ROOT_CONCEPT
) -> ConceptGraph:
    """Merge decoded ``penman.Graph`` objects into one :class:`ConceptGraph`.

    Instances become nodes labelled by their concept, attributes (constants such as the
    ``"Spain"`` of a name) become nodes labelled by their value, edges keep their role
    (without the leading colon). With several graphs, variables are prefixed ``g<i>.``.
    The root is the first node whose concept is ``root_concept`` (``None`` if absent).
    """
    graphs = list(graphs)
    out = ConceptGraph()
    for gi, g in enumerate(graphs):
        prefix = f"g{gi}." if len(graphs) > 1 else ""
        for inst in g.instances():  # type: ignore[attr-defined]  # a penman.Graph
            label = inst.target if inst.target is not None else inst.source
            out.add_node(prefix + inst.source, str(label))
        for edge in g.edges():  # type: ignore[attr-defined]  # a penman.Graph
            src, dst = prefix + edge.source, prefix + edge.target
            out.add_node(src)
            out.add_node(dst)
            out.add_edge(src, edge.role.lstrip(":"), dst)
        for k, attr in enumerate(g.attributes()):  # type: ignore[attr-defined]  # a penman.Graph
            src = prefix + attr.source
            out.add_node(src)
            node = f"{src}{attr.role}#{k}"
            out.add_node(node, _strip_constant(str(attr.target)))
            out.add_edge(src, attr.role.lstrip(":"), node)
    out.root = next((n for n, c in out.nodes.items() if c == root_concept), None)
    return out


def parse_penman(
    text: str,
    *,
    root_concept: str = ROOT_CONCEPT,
    file: str | Path | None = None,
    line: int | None = None,
    field: str | None = None,
) -> ConceptGraph:
    """Parse PENMAN text (one or more graphs) into a :class:`ConceptGraph`.

    Raises:
        InputError: the text is not valid PENMAN or holds no graph; ``file``, ``line``
            and ``field`` say where it came from.
    """
    penman = _penman()
    try:
        graphs = penman.loads(text)
    except penman.DecodeError as e:
        # A JSONL field reports the record's line; a file the parser's line.
        at = line if line is not None else getattr(e, "lineno", None)
        raise InputError(
            f"invalid PENMAN/AMR: {getattr(e, 'message', e)}; fix the graph or re-run the "
            "AMR parser",
            file=file,
            line=at,
            field=field,
        ) from None
    if not graphs:
        raise InputError(
            "no AMR graph found (expected PENMAN like '(q / question :ARG1 ...)')",
            file=file,
            line=line,
            field=field,
        )
    return graphs_to_concept_graph(graphs, root_concept)


def load_penman_file(path: str | Path, *, root_concept: str = ROOT_CONCEPT) -> ConceptGraph:
    """Read one question–document pair's AMR from a PENMAN file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read AMR file: {e.strerror}", file=path) from None
    return parse_penman(text, root_concept=root_concept, file=path)


def load_penman_dir(
    directory: str | Path, *, root_concept: str = ROOT_CONCEPT
) -> dict[tuple[str, str], ConceptGraph]:
    """Read ``<directory>/<qid>/<docid>.amr`` files into ``{(qid, docid): graph}``.

    Suffixes ``.amr``, ``.penman`` and ``.txt`` are read; other files are ignored.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError(
            "AMR directory not found; expected <dir>/<qid>/<docid>.amr files", file=directory
        )
    out: dict[tuple[str, str], ConceptGraph] = {}
    for qdir in sorted(p for p in directory.iterdir() if p.is_dir()):
        for f in sorted(qdir.iterdir()):
            if f.is_file() and f.suffix in PENMAN_SUFFIXES:
                out[(qdir.name, f.stem)] = load_penman_file(f, root_concept=root_concept)
    if not out:
        raise InputError(
            "no AMR files found; expected <dir>/<qid>/<docid>.amr (or .penman)", file=directory
        )
    return out


def load_penman_jsonl(
    path: str | Path,
    *,
    field: str = "amr",
    qid_field: str = "qid",
    docid_field: str = "docid",
    root_concept: str = ROOT_CONCEPT,
) -> dict[tuple[str, str], ConceptGraph]:
    """Read a JSONL file of ``{qid, docid, amr}`` records into ``{(qid, docid): graph}``."""
    path = Path(path)
    out: dict[tuple[str, str], ConceptGraph] = {}
    for n, rec in iter_jsonl(path):
        for name in (qid_field, docid_field, field):
            if rec.get(name) in (None, ""):
                raise InputError(
                    f"missing field '{name}' (each line needs '{qid_field}', "
                    f"'{docid_field}' and '{field}')",
                    file=path,
                    line=n,
                    field=name,
                )
        key = (str(rec[qid_field]), str(rec[docid_field]))
        if key in out:
            raise InputError(
                f"duplicate AMR for query {key[0]!r}, document {key[1]!r}",
                file=path,
                line=n,
                field=docid_field,
            )
        out[key] = parse_penman(
            str(rec[field]), root_concept=root_concept, file=path, line=n, field=field
        )
    return out
