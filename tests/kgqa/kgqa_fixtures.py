"""Small hand-made knowledge bases for the KGQA tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.kb.store import SKB

MOVIES = {
    "Kismet": {"directed_by": ["William Dieterle"], "starred_actors": ["Ronald Colman", "Marlene Dietrich"],
               "release_year": ["1944"], "has_genre": ["Drama"]},
    "Dishonored": {"directed_by": ["Josef von Sternberg"], "starred_actors": ["Marlene Dietrich", "Victor McLaglen"],
                   "release_year": ["1931"], "has_genre": ["Drama"]},
    "Random Harvest": {"directed_by": ["Mervyn LeRoy"], "starred_actors": ["Ronald Colman", "Greer Garson"],
                       "release_year": ["1942"], "has_genre": ["Romance"]},
    "The Story of Louis Pasteur": {"directed_by": ["William Dieterle"], "starred_actors": ["Paul Muni"],
                                   "release_year": ["1936"], "has_genre": ["Drama"]},
}
TYPES = {"directed_by": "person", "starred_actors": "person", "release_year": "year", "has_genre": "genre"}


def movie_kb() -> SKB:
    """Four movies, their directors, actors, years and genres (ids = names)."""
    ids: list[str] = []
    types: list[str] = []
    index: dict[str, int] = {}

    def node(name: str, t: str) -> int:
        if name not in index:
            index[name] = len(ids)
            ids.append(name)
            types.append(t)
        return index[name]

    src, rel, dst = [], [], []
    for movie, rels in MOVIES.items():
        m = node(movie, "movie")
        for r, tails in rels.items():
            for t in tails:
                src.append(m)
                rel.append(r)
                dst.append(node(t, TYPES[r]))
    return SKB.from_columns(ids, types, ids, edges=(np.array(src), np.array(rel), np.array(dst)))


def random_kb(n: int = 40, m: int = 160, seed: int = 0) -> SKB:
    """A random typed multigraph with relations a, b, c (for brute-force comparisons)."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    rel = rng.choice(["a", "b", "c"], m)
    ids = [f"n{i}" for i in range(n)]
    return SKB.from_columns(ids, ["thing"] * n, ids, edges=(src, rel, dst))


def triple_setup() -> tuple[SKB, list[Any], Any]:
    """The movie KB, its entity documents and a ``TripleRetriever`` over them (relation
    paths fitted on six templated questions; topics in brackets)."""
    from skbsearch.benchmarks.metaqa.paths import RelationPathRetriever
    from skbsearch.rerank.triples import TripleRetriever
    from skbsearch.retrieve.entity_docs import build_document_index
    from skbsearch.retrieve.graph.relpath import RelationPathModel
    from skbsearch.verbalise import entity_documents

    skb = movie_kb()
    docs = entity_documents(skb, max_triples=10)
    texts = ["who directed ENT", "who was the director of ENT", "what films did ENT act in",
             "what movies did ENT star in", "when was ENT released", "what year was ENT released"]
    paths = [("directed_by",)] * 2 + [("starred_actors^-1",)] * 2 + [("release_year",)] * 2
    graph = RelationPathRetriever(skb, RelationPathModel(min_df=1).fit(texts, paths), link_mode="brackets")
    retriever = TripleRetriever(skb, docs, build_document_index(docs), graph, k_docs=2, k_paths=5,
                                link_mode="brackets")
    return skb, docs, retriever


def triple_questions(skb: SKB) -> list[Any]:
    """Four training questions over :func:`movie_kb` (``KGQAExample``: topic and answer nodes)."""
    from skbsearch.train.triples import KGQAExample

    def i(name: str) -> int:
        return int(skb.index_of(name))

    return [KGQAExample("who directed [Kismet]", (i("Kismet"),), (i("William Dieterle"),)),
            KGQAExample("what films did [Paul Muni] act in", (i("Paul Muni"),), (i("The Story of Louis Pasteur"),)),
            KGQAExample("when was [Random Harvest] released", (i("Random Harvest"),), (i("1942"),)),
            KGQAExample("what films did [Greer Garson] act in", (i("Greer Garson"),), (i("Random Harvest"),))]


#: MetaQA question forms over :data:`MOVIES` by question type (see :func:`write_folder`).
FORMS = {
    "movie_to_director": ["who directed [{m}]", "who is the director of [{m}]", "[{m}] was directed by who"],
    "movie_to_year": ["when was [{m}] released", "what year did [{m}] come out", "[{m}] release year"],
    "actor_to_movie": ["what films did [{a}] act in", "which movies star [{a}]", "[{a}] appears in which movies"],
}
TWO_HOP = ["who directed the films [{a}] acted in", "the movies of [{a}] were directed by who",
           "who are the directors of films starring [{a}]"]


def write_folder(root: Path, with_test: bool = False) -> Path:
    """A MetaQA folder over :data:`MOVIES`: ``kb.tsv``, 1- and 2-hop dev questions with their
    qtypes (and, ``with_test``, a test split without them)."""
    (root / "1-hop").mkdir(parents=True)
    (root / "2-hop").mkdir()
    kb = [f"{m}\t{r}\t{t}" for m, rels in MOVIES.items() for r, ts in rels.items() for t in ts]
    (root / "kb.tsv").write_text("\n".join(kb) + "\n", encoding="utf-8")
    actors: dict[str, list[str]] = {}
    for m, rels in MOVIES.items():
        for a in rels["starred_actors"]:
            actors.setdefault(a, []).append(m)
    one, one_t, two, two_t = [], [], [], []
    for m, rels in MOVIES.items():
        for f in FORMS["movie_to_director"]:
            one.append(f"{f.format(m=m)}\t{rels['directed_by'][0]}")
            one_t.append("movie_to_director")
        for f in FORMS["movie_to_year"]:
            one.append(f"{f.format(m=m)}\t{rels['release_year'][0]}")
            one_t.append("movie_to_year")
    for a, ms in actors.items():
        for f in FORMS["actor_to_movie"]:
            one.append(f"{f.format(a=a)}\t{'|'.join(ms)}")
            one_t.append("actor_to_movie")
        directors = sorted({d for m in ms for d in MOVIES[m]["directed_by"]})
        for f in TWO_HOP:
            two.append(f"{f.format(a=a)}\t{'|'.join(directors)}")
            two_t.append("actor_to_movie_to_director")
    for h, qs, ts in ((1, one, one_t), (2, two, two_t)):
        (root / f"{h}-hop" / "qa_dev.txt").write_text("\n".join(qs) + "\n", encoding="utf-8")
        (root / f"{h}-hop" / "qa_dev_qtype.txt").write_text("\n".join(ts) + "\n", encoding="utf-8")
        if with_test:  # a test split without a qtype file
            (root / f"{h}-hop" / "qa_test.txt").write_text("\n".join(qs[::2]) + "\n", encoding="utf-8")
    return root
