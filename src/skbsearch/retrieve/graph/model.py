"""What the general graph stage learns, its zero-shot fallback, and how it is saved.

:class:`KGModel` holds:

- an anchor model: is a linked anchor one the query's answers hang off? (softmax
  regression over tokens describing the link: source, confidence, rank, type, the words
  before the mention; :func:`anchor_view`);
- a metapath model: n-gram softmax regression (:class:`~skbsearch.retrieve.graph.relpath.
  RelationPathModel`, reused as is) from the query with the anchor's mention masked and
  the anchor's type (:func:`path_view`) to a metapath ``(start_type, step, ...)``. An
  anchor's metapath distribution is ``P(real | anchor) * P(metapath | query, type)``;
- a target-type model: the same regression from the query to its answers' node type;
- the combination weights of the evidence (relational, text, attribute bounds, type);
- whether linked anchors are excluded from the answers, the linker's template words and
  its learned aliases (words that name a node without its name);
- its blend with the untrained stage (:mod:`~skbsearch.retrieve.graph.blend`), chosen by
  cross-validation inside the training queries.

Without training (:func:`zero_shot_paths`, :func:`zero_shot_types`) metapaths and target
types come from the schema: relation and type names matched to the query's words.

Saved as ``model.json`` (``"artefact": "kg-model"``) plus ``.npy`` arrays, atomically;
loading never unpickles.
"""

from __future__ import annotations

import functools
import heapq
import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.atomic import atomic_dir
from skbsearch.core.errors import ArtefactError
from skbsearch.kb.descriptive import descriptive_fields
from skbsearch.kb.profile import FUNCTION_WORDS
from skbsearch.kb.store import SKB, arrow_numpy
from skbsearch.retrieve.graph.exact_linker import MASK
from skbsearch.retrieve.graph.linking import Anchor
from skbsearch.retrieve.graph.metapaths import Metapath, TypeGraph, steps_of
from skbsearch.retrieve.graph.relpath import ARRAYS, RelationPathModel, read_model_json

FORMAT = "skbsearch.kg/2"
#: formats :meth:`KGModel.load` reads (``/1``: before the learned back-off)
READABLE = (FORMAT, "skbsearch.kg/1")
KIND = "kg-model"
FEATURES = ("rel", "text", "attr", "type")
DEFAULT_WEIGHTS: dict[str, float] = {"rel": 1.0, "text": 1.0, "attr": 1.0, "type": 0.5}
#: English function words that never name a relation (``has_genre`` is about "genre").
_FUNCTION = frozenset("a an the of in on at to by for is are was has have with from and or".split())
_TOKEN = re.compile(r"[^0-9a-z]+")
#: English verbs and nouns a question uses for what a schema names otherwise ("born in" is
#: "place of birth"; "bordering" is "adjoins"): added to the query's words when matching
#: relation names. General English, no knowledge base's vocabulary.
DERIVED: dict[str, tuple[str, ...]] = {
    "born": ("birth",), "birthplace": ("birth",), "died": ("death",), "dead": ("death",), "die": ("death",),
    "buried": ("burial",), "married": ("marriage", "spouse"), "wife": ("spouse",), "husband": ("spouse",),
    "won": ("winner", "win", "award"), "win": ("winner", "award"), "winners": ("winner", "award"),
    "wrote": ("written", "writer"), "starred": ("actor", "cast", "performance"),
    "starring": ("actor", "cast", "performance"), "appeared": ("actor", "cast", "performance"),
    "scored": ("music",), "score": ("music",), "composed": ("music", "composer"),
    "directed": ("director",), "produced": ("producer",), "edited": ("editor", "edited"),
    "founded": ("founder", "founded"), "studied": ("student", "education"), "alumni": ("student", "graduate"),
    "graduated": ("graduate", "student"), "bordering": ("adjoin", "border"), "borders": ("adjoin",),
    "border": ("adjoin",), "neighbouring": ("adjoin",), "neighboring": ("adjoin",),
    "lived": ("lived", "residence"), "lives": ("lived", "residence"), "located": ("location", "contain"),
    "members": ("member", "membership", "group"), "member": ("membership", "group"),
    "played": ("player", "team", "roster"), "plays": ("player", "instrument"),
}
#: weight of the best zero-shot metapath when the query names none of its words
UNNAMED_PATH_WEIGHT = 0.5


def _tag(text: str) -> str:
    return _TOKEN.sub("_", text.lower()).strip("_") or "x"


def _masked(words: Sequence[str], anchor: Anchor) -> list[str]:
    span = set(anchor.words)
    out: list[str] = []
    for i, w in enumerate(words):
        if i in span:
            if not out or out[-1] != MASK:
                out.append(MASK)
        else:
            out.append(w)
    return out


def path_view(words: Sequence[str], anchor: Anchor, type_name: str) -> str:
    """What the metapath model reads: the query with the anchor's mention masked, and
    the anchor's node type."""
    return " ".join(_masked(words, anchor)) + f" t_{_tag(type_name)}"


def _conf_bucket(conf: float) -> str:
    return next(f"c{k}" for k, lo in enumerate((0.9, 0.6, 0.3, 0.1, 0.0)) if conf >= lo)


def anchor_view(words: Sequence[str], anchor: Anchor, rank: int, type_name: str, brackets: bool) -> str:
    """What the anchor model reads: tokens for the link (source, confidence, rank, node
    type, mention length, whether the query has brackets) and the two words before the
    mention — enough to tell "bought with the ENT" from a word the query shares with a name."""
    first = min(anchor.words) if anchor.words else len(words)
    before = [f"b_{w}" for w in words[max(0, first - 2) : first]]
    toks = [f"s_{anchor.source}", _conf_bucket(anchor.conf), f"r{min(rank, 4)}", f"t_{_tag(type_name)}",
            f"n{min(len(anchor.words), 4)}", "brackets" if brackets else "plain", *before]
    return " ".join(toks)


# ---------------------------------------------------------------------- zero-shot
def _names_word(word: str, query_words: set[str]) -> bool:
    """Whether a relation/type word is said by the query: a query word of 3+ letters that
    shares its first 5 letters with it (all of them if shorter): "directed" ~ "director",
    "act" ~ "actors"."""
    w = word.lower()
    if len(w) < 3 or w in _FUNCTION:
        return False
    return any(len(q) >= 3 and q not in _FUNCTION and q[:5] == w[: min(5, len(q))] for q in query_words)


def zero_shot_types(skb: SKB, query_words: set[str], text_types: Sequence[str],
                    nameable: Collection[str] | None = None) -> dict[str, float]:
    """Target types without training: the types that carry text (documents) and the types
    the query names ("which *genre*"; but "from the *brand* X" names a type it does not
    ask for, so named types never replace the document types); all types if neither.
    ``nameable``: the types a query may name (default all; the graph stage gives the ones
    that inform); a function word never names a type."""
    words = {w for w in query_words if w not in FUNCTION_WORDS}
    named = [t for t in skb.type_names if (nameable is None or t in nameable)
             and any(_names_word(p, words) for p in _TOKEN.split(t.lower()) if p and p not in FUNCTION_WORDS)]
    chosen = list(dict.fromkeys([*text_types, *named])) or list(skb.type_names)
    return {t: 1.0 / len(chosen) for t in chosen}


def zero_shot_paths(tg: TypeGraph, start: str, query_words: set[str], targets: Sequence[str] | None,
                    max_hops: int = 2, limit: int | None = None,
                    first: frozenset[str] | None = None) -> list[tuple[Metapath, float]]:
    """Metapaths from ``start`` scored by how much of their relation/type names the query says.

    ``score = (1 + 2 * named words) / hops^2`` over paths ending in a target type (any
    type if none fits), divided by the best score (the likeliest path weighs 1); ties keep
    the schema's walk order. With ``limit``, only the ``limit`` best are returned, and a
    branch whose best possible score cannot reach them is never walked (on a schema of
    hundreds of relations there are 10^5 two-hop paths, a handful of which the query names).
    ``first``: the steps the anchor node itself has (:meth:`TypeGraph.node_steps`); paths
    that leave it by another step reach nothing from it and are not proposed.
    """
    vocab = _step_vocab(tg)
    said = set(query_words).union(*(DERIVED.get(w, ()) for w in query_words))
    spoken = frozenset(w for w in vocab if _names_word(w, said))

    ends = set(targets) if targets is not None else None
    found = _walk_paths(tg, start, max_hops, ends, spoken, limit, first)
    if not found and ends is not None:
        found = _walk_paths(tg, start, 1, None, spoken, limit, first)
    found.sort(key=lambda x: (-x[1], x[2]))
    if limit is not None:
        found = found[:limit]
    top = max((sc for _, sc, _ in found), default=1.0)
    # no path the query names: the best guess is only a guess
    scale = 1.0 if top > 1.0 else UNNAMED_PATH_WEIGHT
    return [(p, scale * sc / top) for p, sc, _ in found]


def _walk_paths(tg: TypeGraph, start: str, max_hops: int, ends: set[str] | None,
                spoken: frozenset[str], limit: int | None, first: frozenset[str] | None = None,
                ) -> list[tuple[Metapath, float, int]]:
    """Depth-first over metapaths in the schema's order: ``(path, score, order)``, pruned
    by an upper bound on the named words a longer path can add (see :func:`zero_shot_paths`).

    A path's named words are the ``spoken`` words among its steps' and its end types' words,
    carried down the walk step by step (the query's few spoken words, not every path's words:
    a schema has 10^5 two-hop paths, so the first query would otherwise compute what no cache
    of them holds)."""
    out: list[tuple[Metapath, float, int]] = []
    best: list[float] = []  # a min-heap of the ``limit`` best scores so far
    # the most named words one step (with the types it leads to) can add
    step_max = max((len(w & spoken) for w in _step_word_sets(tg)), default=0)
    said_step: dict[str, frozenset[str]] = {}
    said_ends: dict[frozenset[str], frozenset[str]] = {}

    def floor() -> float:
        return best[0] if limit is not None and len(best) >= limit else -1.0

    def walk(path: Metapath, cur: frozenset[str], said: frozenset[str]) -> None:
        for step, nxt in tg.next_steps(cur):
            if first is not None and len(path) == 1 and step not in first:
                continue
            new = (*path, step)
            hops = len(new) - 1
            sw = said_step.get(step)
            if sw is None:
                sw = said_step[step] = _step_words(step) & spoken
            now = said | sw if sw else said
            ew = said_ends.get(nxt)
            if ew is None:
                ew = said_ends[nxt] = _ends_words(nxt) & spoken
            k = len(now | ew) if ew else len(now)
            if ends is None or nxt & ends:
                sc = (1.0 + 2.0 * k) / hops ** 2
                out.append((new, sc, len(out)))
                if limit is not None:
                    (heapq.heappush if len(best) < limit else heapq.heappushpop)(best, sc)
            if hops < max_hops and (1.0 + 2.0 * (k + step_max)) / (hops + 1) ** 2 >= floor():
                walk(new, nxt, now)  # noqa: F821 - (cleared below, after the walk)

    walk((start,), frozenset([start]), frozenset())
    del walk  # the closure refers to itself: a cycle (holding ``tg``, its SKB) until cleared
    return out


def _step_word_sets(tg: TypeGraph) -> list[frozenset[str]]:
    """The distinct word sets of single steps with the types they lead to (cached on ``tg``)."""
    got = tg.__dict__.get("_zero_shot_step_words")
    if got is None:
        got = list({_path_words((t, step), dst) for t in tg.types for step, dst in tg.steps_from.get(t, ())})
        tg.__dict__["_zero_shot_step_words"] = got
    return got


def _step_vocab(tg: TypeGraph) -> frozenset[str]:
    """Every word of the schema's relation and type names (cached on ``tg``)."""
    got = tg.__dict__.get("_zero_shot_vocab")
    if got is None:
        got = frozenset().union(*_step_word_sets(tg), *(_path_words((t,), frozenset([t])) for t in tg.types))
        tg.__dict__["_zero_shot_vocab"] = got
    return got


def prepare_zero_shot(tg: TypeGraph) -> None:
    """Compute the words of the schema's relations and types, and the type sets two-hop
    walks reach, now (stage set-up): the first query's walk then reads them from caches
    like every later one instead of paying for them."""
    _step_vocab(tg)
    for t in tg.types:
        for _, ends in tg.next_steps(frozenset([t])):
            _ends_words(ends)
            for _, further in tg.next_steps(ends):
                _ends_words(further)


@functools.lru_cache(maxsize=65536)
def _path_words(path: Metapath, ends: frozenset[str]) -> frozenset[str]:
    return frozenset().union(*map(_step_words, steps_of(path))) | _ends_words(ends)


@functools.lru_cache(maxsize=65536)
def _step_words(step: str) -> frozenset[str]:
    """The words of one relation step's name."""
    return frozenset(w for w in _TOKEN.split(step.removesuffix("^-1").lower()) if w)


@functools.lru_cache(maxsize=16384)
def _ends_words(ends: frozenset[str]) -> frozenset[str]:
    """The words of a set of types' names."""
    return frozenset(w for e in ends for w in _TOKEN.split(e.lower()) if w)


def text_types(skb: SKB, min_share: float = 0.5) -> list[str]:
    """Node types most of whose nodes have a descriptive text field besides the name
    (documents; :func:`descriptive_fields`)."""
    fields = descriptive_fields(skb)
    if not fields:
        return []
    has = np.zeros(skb.num_nodes, dtype=bool)
    for f in fields:
        col = skb.nodes.column(f)
        if col.null_count == 0:
            has[:] = True
            break
        has |= arrow_numpy(col.is_valid())
    codes = skb.node_type_codes
    out = []
    for k, t in enumerate(skb.type_names):
        mask = codes == k
        if mask.any() and float(has[mask].mean()) >= min_share:
            out.append(t)
    return out


# ---------------------------------------------------------------------- the model
@dataclass
class KGModel:
    """The fitted state of the general graph stage (see the module docstring)."""

    path_model: RelationPathModel | None = None
    anchor_model: RelationPathModel | None = None
    type_model: RelationPathModel | None = None
    answer_types: list[str] = field(default_factory=list)
    weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    exclude_anchors: bool = True
    background: dict[str, float] | None = None
    info: dict[str, Any] = field(default_factory=dict)
    #: learned aliases: query word or bigram -> [(node id, strength)]
    aliases: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    #: weight of this model against the untrained stage (:mod:`~skbsearch.retrieve.graph.blend`;
    #: 0: the untrained stage, 1: this model alone)
    blend: float = 1.0
    #: learned back-off: metapath -> metapaths to follow when it reaches nothing
    backoff: dict[Metapath, list[Metapath]] = field(default_factory=dict)

    def anchor_probs(self, views: Sequence[str]) -> np.ndarray | None:
        """P(the anchor leads to the answers) per anchor view (``None``: not learned)."""
        if self.anchor_model is None or not views:
            return None
        classes = [c[0] for c in self.anchor_model.classes]
        if "real" not in classes:
            return np.zeros(len(views))
        return self.anchor_model.predict_proba(views)[:, classes.index("real")]

    def type_probs(self, texts: Sequence[str]) -> list[dict[str, float]]:
        """P(answer type | query) per query (one constant distribution if one type was seen)."""
        if self.type_model is None:
            const = {t: 1.0 for t in self.answer_types[:1]}
            return [dict(const) for _ in texts]
        P = self.type_model.predict_proba(texts)
        names = [c[0] for c in self.type_model.classes]
        return [dict(zip(names, row.tolist(), strict=True)) for row in P]

    def save(self, path: str | Path) -> Path:
        """Write ``model.json`` + ``.npy`` arrays into ``path`` (atomically; no pickle)."""
        path = Path(path)
        with atomic_dir(path, kind=KIND) as tmp:
            meta: dict[str, Any] = {
                "artefact": KIND, "format": FORMAT, "answer_types": self.answer_types,
                "weights": self.weights, "exclude_anchors": self.exclude_anchors, "blend": self.blend,
                "background": self.background, "info": self.info,
                "aliases": {g: [[n, s] for n, s in v] for g, v in self.aliases.items()},
                "backoff": [[list(p), [list(q) for q in qs]] for p, qs in self.backoff.items()],
                "path_model": _dump_lr(self.path_model, tmp, "path"),
                "anchor_model": _dump_lr(self.anchor_model, tmp, "anchor"),
                "type_model": _dump_lr(self.type_model, tmp, "type"),
            }
            (tmp / "model.json").write_text(json.dumps(meta), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> KGModel:
        """Open a model written by :meth:`save`."""
        path = Path(path)
        meta = read_model_json(path, READABLE, "a graph-stage model; fit one with "
                               "skbsearch.stages.fit(pipeline, queries, qrels) and save it")
        try:
            weights = {k: float(meta["weights"].get(k, DEFAULT_WEIGHTS[k])) for k in FEATURES}
            return cls(
                path_model=_load_lr(meta.get("path_model"), path, "path"),
                anchor_model=_load_lr(meta.get("anchor_model"), path, "anchor"),
                type_model=_load_lr(meta.get("type_model"), path, "type"),
                answer_types=[str(t) for t in meta.get("answer_types", [])],
                weights=weights, exclude_anchors=bool(meta.get("exclude_anchors", True)),
                background=meta.get("background"), info=dict(meta.get("info") or {}),
                aliases={str(g): [(str(n), float(x)) for n, x in v] for g, v in (meta.get("aliases") or {}).items()},
                blend=min(max(float(meta.get("blend", 1.0)), 0.0), 1.0),
                backoff={tuple(map(str, p)): [tuple(map(str, q)) for q in qs] for p, qs in meta.get("backoff") or []},
            )
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            raise ArtefactError(f"{path}/model.json: damaged graph-stage model ({e!r}); fit it again") from None


def _dump_lr(model: RelationPathModel | None, tmp: Path, prefix: str) -> dict[str, Any] | None:
    if model is None:
        return None
    for name in ARRAYS:
        np.save(tmp / f"{prefix}_{name}.npy", np.asarray(getattr(model, name), dtype=np.float64))
    return model.settings()


def _load_lr(meta: dict[str, Any] | None, path: Path, prefix: str) -> RelationPathModel | None:
    if meta is None:
        return None
    try:
        arrays = {n: np.load(path / f"{prefix}_{n}.npy", allow_pickle=False) for n in ARRAYS}
    except (OSError, ValueError, EOFError) as e:
        raise ArtefactError(f"{path}/{prefix}_*.npy: missing or damaged array ({e}); fit the model again") from None
    return RelationPathModel.restore(meta, arrays, f"{path}: {prefix} model")
