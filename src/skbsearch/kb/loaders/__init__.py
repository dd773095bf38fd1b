"""Loaders: other formats -> :class:`skbsearch.kb.SKB`.

=========  ==================================================  ===========================
format     source                                               function
=========  ==================================================  ===========================
jsonl      dir with ``nodes.jsonl`` (+ ``edges.jsonl``)         :func:`load_jsonl`
csv        dir with ``nodes.csv`` (+ ``edges.csv``)             :func:`load_csv`
triples    ``head<TAB>relation<TAB>tail`` file (MetaQA kb.tsv)  :func:`load_triples`
stark      STaRK ``processed/`` dir (node_info.pkl, *.pt)       :func:`load_stark`
kg         public KG layout: split triple files + entity and    :func:`load_kg`
           relation texts (FB15k-237, WN18RR, CoDEx, YAGO3-10,
           Wikidata5M)
rdf        N-Triples / Turtle / N-Quads / TriG / RDF/XML file   :func:`load_rdf`
           (pyoxigraph, extra ``rdf``)
=========  ==================================================  ===========================

A nodes file (jsonl, csv) goes with an edges file of either format, told by its suffix
(``.jsonl``, ``.csv``, ``.tsv``; :mod:`skbsearch.kb.loaders.files`).

:func:`load` picks one by name (or by :func:`detect_format`) and passes options on.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.kb.loaders.files import load_csv, load_jsonl
from skbsearch.kb.loaders.kg import load_kg
from skbsearch.kb.loaders.kg_files import looks_like_kg
from skbsearch.kb.loaders.rdf import SUFFIXES as RDF_SUFFIXES
from skbsearch.kb.loaders.rdf import load_rdf
from skbsearch.kb.loaders.stark import load_stark
from skbsearch.kb.loaders.triples import METAQA_TYPES, load_triples
from skbsearch.kb.store import SKB

FORMATS = ("jsonl", "csv", "triples", "stark", "kg", "rdf")

__all__ = [
    "FORMATS",
    "METAQA_TYPES",
    "detect_format",
    "load",
    "load_csv",
    "load_jsonl",
    "load_kg",
    "load_rdf",
    "load_stark",
    "load_triples",
]


def detect_format(source: str | Path | None, nodes: str | Path | None = None) -> str:
    """Guess the format of ``source`` (or of an explicit ``nodes`` file) from file names."""
    probe = Path(nodes) if nodes is not None else None
    if probe is None and source is not None:
        src = Path(source)
        if src.is_dir():
            for name, fmt in (("nodes.jsonl", "jsonl"), ("nodes.csv", "csv"), ("nodes.tsv", "csv")):
                if (src / name).is_file():
                    return fmt
            if any((src / p / "node_info.pkl").is_file() for p in (".", "processed")) or (
                src / "processed" / "cache"
            ).is_dir():
                return "stark"
            if looks_like_kg(src):
                return "kg"
            raise InputError(
                "cannot tell the format: no nodes.jsonl, nodes.csv, STaRK node_info.pkl or split "
                "triple files (train/valid/test .tsv|.txt) here; "
                f"pass --format ({'|'.join(FORMATS)})",
                file=src,
            )
        probe = src
    if probe is None:
        raise InputError("give a source directory or file")
    suffix = probe.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix == ".csv" or (suffix == ".tsv" and nodes is not None):  # a nodes file has a header
        return "csv"
    if suffix in (".tsv", ".txt"):
        return "triples"
    if suffix in RDF_SUFFIXES:
        return "rdf"
    raise InputError(f"cannot tell the format from the name; pass --format ({'|'.join(FORMATS)})", file=probe)


def load(source: str | Path | None, format: str | None = None, **options: Any) -> SKB:
    """Load ``source`` with the loader for ``format`` (detected when None).

    Options go to the loader: ``nodes``, ``edges``, ``attributes``, ``default_type``
    (jsonl, csv); ``types``, ``delimiter`` (triples); ``trust_pickles``, ``dataset``
    (stark); ``types`` (kg: a file of ``id<TAB>type`` lines).
    Options a loader does not take are an error.
    """
    if source is not None and options.get("nodes") is None and not Path(source).exists():
        raise InputError("not found", file=source)
    fmt = format or detect_format(source, options.get("nodes"))
    loaders: dict[str, Callable[..., SKB]] = {"jsonl": load_jsonl, "csv": load_csv, "triples": load_triples, "stark": load_stark,
               "kg": load_kg, "rdf": load_rdf}
    if fmt not in loaders:
        raise InputError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}", field="format")
    fn = loaders[fmt]
    accepted = set(inspect.signature(fn).parameters)
    bad = sorted(k for k, v in options.items() if k not in accepted and v not in (None, (), [], False))
    if bad:
        raise InputError(f"option(s) {bad} do not apply to the {fmt} format", field=bad[0])
    kwargs = {k: v for k, v in options.items() if k in accepted}
    if fmt in ("triples", "stark", "kg", "rdf") and source is None:
        raise InputError(f"the {fmt} format needs a SOURCE path")
    return fn(source, **kwargs)
