"""Small hand-made knowledge bases for the KGQA tests."""

from __future__ import annotations

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
