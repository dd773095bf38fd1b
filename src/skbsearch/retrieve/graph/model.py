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

Without training (:mod:`~skbsearch.retrieve.graph.zero_shot`) metapaths and target types
come from the schema: relation and type names matched to the query's words.

Saved as ``model.json`` (``"artefact": "kg-model"``) plus ``.npy`` arrays, atomically;
loading never unpickles.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.atomic import atomic_dir
from skbsearch.core.errors import ArtefactError
from skbsearch.kb.descriptive import descriptive_fields
from skbsearch.kb.store import SKB, arrow_numpy
from skbsearch.retrieve.graph.exact_names import MASK
from skbsearch.retrieve.graph.linking import Anchor
from skbsearch.retrieve.graph.metapaths import Metapath
from skbsearch.retrieve.graph.relpath import ARRAYS, RelationPathModel, read_model_json

FORMAT = "skbsearch.kg/2"
#: formats :meth:`KGModel.load` reads (``/1``: before the learned back-off)
READABLE = (FORMAT, "skbsearch.kg/1")
KIND = "kg-model"
FEATURES = ("rel", "text", "attr", "type")
DEFAULT_WEIGHTS: dict[str, float] = {"rel": 1.0, "text": 1.0, "attr": 1.0, "type": 0.5}
_TOKEN = re.compile(r"[^0-9a-z]+")


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
