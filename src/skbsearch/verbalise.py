"""Triple verbalisation and entity-centric documents (Sun et al., 2024, sec. 3.2.1).

A triple ``<Kismet, directed_by, William Dieterle>`` becomes the sentence
"Kismet directed by William Dieterle" (one template a relation). An *entity-centric*
document groups the triples that share a subject entity, at most ``max_triples`` a
document, every triple in exactly one document; a subject with more triples gets several
balanced documents (25 triples -> 9 + 8 + 8).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from skbsearch.kb.store import SKB

#: Templates for the WikiMovies / MetaQA relations; ``{head}`` and ``{tail}`` are names.
METAQA_TEMPLATES: dict[str, str] = {
    "directed_by": "{head} directed by {tail}",
    "written_by": "{head} written by {tail}",
    "starred_actors": "{head} starred actors {tail}",
    "release_year": "{head} release year {tail}",
    "in_language": "{head} in language {tail}",
    "has_tags": "{head} has tags {tail}",
    "has_genre": "{head} has genre {tail}",
    "has_imdb_votes": "{head} has imdb votes {tail}",
    "has_imdb_rating": "{head} has imdb rating {tail}",
}


@dataclass
class Verbaliser:
    """Turns triples (edge indices of an SKB) into sentences.

    Attributes:
        templates: relation -> template with ``{head}``, ``{tail}`` (and optionally
            ``{relation}``). Relations without a template use ``"{head} {relation} {tail}"``
            with underscores turned into spaces.
    """

    templates: Mapping[str, str] = field(default_factory=lambda: dict(METAQA_TEMPLATES))

    def template(self, relation: str) -> str:
        """The template used for ``relation``."""
        return self.templates.get(relation, "{head} {relation} {tail}")

    def sentence(self, head: str, relation: str, tail: str) -> str:
        """Verbalise one triple given as names."""
        return self.template(relation).format(
            head=head, tail=tail, relation=relation.replace("_", " ")
        )

    def triples(self, skb: SKB, edges: Sequence[int] | np.ndarray) -> list[str]:
        """Sentences for the SKB edges with these indices."""
        names = skb.column("name")
        ids = skb.ids
        rels = skb.schema.relations
        out = []
        for e in np.asarray(edges, dtype=np.int64):
            s, t = int(skb.edge_src[e]), int(skb.edge_dst[e])
            out.append(
                self.sentence(names[s] or ids[s], rels[int(skb.edge_rel[e])], names[t] or ids[t])
            )
        return out


@dataclass(frozen=True)
class EntityDocument:
    """A document of triples sharing one subject.

    Attributes:
        id: ``"<subject id>#<k>"`` (k = 0, 1, ... among the subject's documents).
        subject: internal index of the subject node.
        edges: SKB edge indices of the triples, in document order.
        sentences: the verbalised triples, aligned with ``edges``.
    """

    id: str
    subject: int
    edges: tuple[int, ...]
    sentences: tuple[str, ...]

    @property
    def text(self) -> str:
        """The document text: its sentences joined by ``". "``."""
        return ". ".join(self.sentences)

    def context(self, position: int) -> list[str]:
        """The other sentences of the document (the re-ranker's context for one triple)."""
        return [s for i, s in enumerate(self.sentences) if i != position]


def group_edges(
    subjects: np.ndarray, max_triples: int = 10, seed: int | None = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Assign every edge to a document of at most ``max_triples`` edges with one subject.

    Args:
        subjects: the subject (source node) of each edge.
        max_triples: the maximum number of triples a document.
        seed: shuffle a subject's triples with this seed (the paper presents them in
            random order); ``None`` keeps the input order.

    Returns:
        ``(order, doc)``: edge indices grouped document by document, and for each of
        them its document number (non-decreasing, 0-based, consecutive).
    """
    if max_triples < 1:
        raise ValueError("max_triples must be >= 1")
    subjects = np.asarray(subjects, dtype=np.int64)
    m = len(subjects)
    perm = np.random.default_rng(seed).permutation(m) if seed is not None else np.arange(m)
    order = perm[np.argsort(subjects[perm], kind="stable")]
    subj = subjects[order]
    if m == 0:
        return order, np.zeros(0, np.int64)
    starts = np.flatnonzero(np.r_[True, subj[1:] != subj[:-1]])
    counts = np.diff(np.r_[starts, m])
    rank = np.arange(m) - np.repeat(starts, counts)
    n = np.repeat(counts, counts)
    n_docs = -(-counts // max_triples)  # ceil
    nd = np.repeat(n_docs, counts)
    chunk = rank * nd // n  # balanced chunks: sizes differ by at most one
    first_doc = np.r_[0, np.cumsum(n_docs)[:-1]]
    doc = np.repeat(first_doc, counts) + chunk
    return order, doc


def entity_documents(
    skb: SKB,
    max_triples: int = 10,
    *,
    seed: int | None = 0,
    verbaliser: Verbaliser | None = None,
    relations: Sequence[str] | None = None,
) -> list[EntityDocument]:
    """Entity-centric documents over the SKB's triples (subject = edge source).

    Args:
        skb: the knowledge base.
        max_triples: at most this many triples a document.
        seed: order of triples inside a subject's documents (``None``: SKB order).
        verbaliser: sentence templates (default: :data:`METAQA_TEMPLATES` + fallback).
        relations: only these relations (default: all).
    """
    verbaliser = verbaliser or Verbaliser()
    edges = np.arange(skb.num_edges)
    if relations is not None:
        codes = [skb.schema.relations.index(r) for r in relations]
        edges = edges[np.isin(skb.edge_rel, codes)]
    order, doc = group_edges(skb.edge_src[edges], max_triples, seed)
    ordered = edges[order]
    sentences = verbaliser.triples(skb, ordered)
    ids = skb.ids
    out: list[EntityDocument] = []
    bounds = np.flatnonzero(np.r_[True, doc[1:] != doc[:-1], True]) if len(doc) else [0]
    k_of: dict[int, int] = {}
    for a, b in zip(bounds[:-1], bounds[1:], strict=False):
        subject = int(skb.edge_src[ordered[a]])
        k = k_of.get(subject, 0)
        k_of[subject] = k + 1
        out.append(
            EntityDocument(
                id=f"{ids[subject]}#{k}",
                subject=subject,
                edges=tuple(int(e) for e in ordered[a:b]),
                sentences=tuple(sentences[a:b]),
            )
        )
    return out


def document_of_edge(documents: Sequence[EntityDocument], num_edges: int) -> np.ndarray:
    """For every SKB edge, the position of its document in ``documents`` (-1: none)."""
    out = np.full(num_edges, -1, dtype=np.int64)
    for i, d in enumerate(documents):
        out[list(d.edges)] = i
    return out
