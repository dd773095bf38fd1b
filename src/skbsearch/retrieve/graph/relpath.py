"""Relation-path prediction: which chain of relations does a question ask for?

``what films did [X] act in`` -> ``("starred_actors^-1",)``;
``who directed the films [X] acted in`` -> ``("starred_actors^-1", "directed_by")``.

A trained model, not rules: multinomial logistic regression (softmax, L2) over TF-IDF
word uni- and bigrams of the question with the topic mention masked, fitted with
L-BFGS (numpy/scipy). Saved as ``model.npz`` (arrays) + ``model.json`` (vocabulary,
classes, settings): no pickle.

Training labels come from question-type strings such as MetaQA's
``actor_to_movie_to_director``, mapped to relation paths with :func:`qtype_to_path`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from skbsearch.core.atomic import atomic_dir
from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.kb.schema import INVERSE_SUFFIX, Schema
from skbsearch.retrieve.lbfgs import minimize_lbfgs

Path_ = tuple[str, ...]
FORMAT = "skbsearch.relpath/1"
#: the fitted arrays, saved beside the JSON settings
ARRAYS = ("W", "b", "idf")


# ---------------------------------------------------------------------- labels -> paths
def _compact(s: str) -> str:
    return "".join(c for c in s.lower() if c.isalnum())


def _word_matches(word: str, relation: str) -> int:
    """How well a type word names a relation (0 = not at all); longer = better."""
    w = _compact(word)
    tokens = [t for t in relation.lower().split("_") if t and t not in ("has", "in", "by", "of", "is")]
    whole = _compact("".join(tokens))
    if w == whole:
        return 100
    best = 0
    for t in tokens:
        n = 0
        while n < min(len(w), len(t)) and w[n] == t[n]:
            n += 1
        if n >= min(4, len(w)):
            best = max(best, n)
    return best


def qtype_to_path(qtype: str, schema: Schema) -> Path_:
    """Map a question type like ``actor_to_movie_to_director`` to a relation path.

    A step ``a_to_b`` walks relation ``r`` forwards when ``a`` is r's source type (from
    the schema's relation roles) and ``b`` names r's target (its type, or the relation
    name: ``actor`` -> ``starred_actors``, ``director`` -> ``directed_by``,
    ``imdbrating`` -> ``has_imdb_rating``); backwards (``r^-1``) when ``b`` is r's source
    type and ``a`` names its target. The best-matching relation wins.

    Raises:
        InputError: when a step matches no relation.
    """
    words = qtype.strip().split("_to_")
    if len(words) < 2:
        raise InputError(f"question type {qtype!r} has no '_to_' step", field="qtype")

    def is_type(word: str, type_name: str | None) -> bool:
        return type_name is not None and _compact(type_name) == _compact(word)

    def names(word: str, rel: str, target: str | None) -> int:
        return 200 if is_type(word, target) else _word_matches(word, rel)

    path: list[str] = []
    for a, b in zip(words[:-1], words[1:], strict=True):
        best: tuple[int, str] | None = None
        for rel in schema.relations:
            src, dst = (list(schema.relation_roles.get(rel) or []) + [None, None])[:2]
            options = []
            if is_type(a, src):
                options.append((names(b, rel, dst), rel))
            if is_type(b, src):
                options.append((names(a, rel, dst), rel + INVERSE_SUFFIX))
            for score, step in options:
                if score and (best is None or score > best[0]):
                    best = (score, step)
        if best is None:
            raise InputError(
                f"question type {qtype!r}: no relation links '{a}' and '{b}' "
                f"(relations: {schema.relations})",
                field="qtype",
            )
        path.append(best[1])
    return tuple(path)


def path_key(path: Sequence[str]) -> str:
    """Readable form of a path: ``starred_actors^-1 -> directed_by``."""
    return " -> ".join(path)


# ---------------------------------------------------------------------- features
def _ngrams(text: str) -> list[str]:
    tokens = ["<s>", *text.split(), "</s>"]
    return tokens[1:-1] + [f"{x} {y}" for x, y in zip(tokens[:-1], tokens[1:], strict=False)]


class RelationPathModel:
    """Softmax regression over TF-IDF n-grams of masked questions -> relation paths.

    Args:
        l2: L2 penalty on the weights.
        max_iter: L-BFGS iterations.
        min_df: ignore n-grams seen in fewer training questions.
        solver: ``scipy`` (SciPy's L-BFGS-B) or ``numpy`` (:mod:`skbsearch.retrieve.lbfgs`,
            much faster per iteration when there are many classes and n-grams).
    """

    def __init__(self, l2: float = 1e-4, max_iter: int = 300, min_df: int = 2,
                 solver: str = "scipy") -> None:
        if solver not in ("scipy", "numpy"):
            raise InputError(f"solver must be 'scipy' or 'numpy', got {solver!r}", field="solver")
        self.l2 = l2
        self.max_iter = max_iter
        self.min_df = min_df
        self.solver = solver
        self.vocab: dict[str, int] = {}
        self.idf = np.zeros(0)
        self.classes: list[Path_] = []
        self.W = np.zeros((0, 0))
        self.b = np.zeros(0)

    # ------------------------------------------------------------------ features
    def _counts(self, texts: Sequence[str]) -> sp.csr_matrix:
        rows, cols = [], []
        for i, t in enumerate(texts):
            for g in _ngrams(t):
                j = self.vocab.get(g)
                if j is not None:
                    rows.append(i)
                    cols.append(j)
        data = np.ones(len(rows))
        m = sp.csr_matrix((data, (rows, cols)), shape=(len(texts), len(self.vocab)))
        m.sum_duplicates()
        return m

    def features(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Sub-linear TF-IDF rows, L2-normalised, for masked questions."""
        m = self._counts(texts)
        m.data = 1.0 + np.log(m.data)
        m = m @ sp.diags(self.idf)
        norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        return sp.csr_matrix(sp.diags(1.0 / norms) @ m)

    # ------------------------------------------------------------------ training
    def fit(self, texts: Sequence[str], paths: Sequence[Sequence[str]]) -> RelationPathModel:
        """Fit on masked questions and their relation paths."""
        if len(texts) != len(paths) or not texts:
            raise InputError("need the same, non-zero number of questions and paths")
        df: dict[str, int] = {}
        for t in texts:
            for g in set(_ngrams(t)):
                df[g] = df.get(g, 0) + 1
        kept = sorted(g for g, c in df.items() if c >= self.min_df) or sorted(df)
        self.vocab = {g: i for i, g in enumerate(kept)}
        n = len(texts)
        self.idf = np.array([np.log((1 + n) / (1 + df[g])) + 1.0 for g in kept])
        self.classes = sorted({tuple(p) for p in paths})
        index = {p: k for k, p in enumerate(self.classes)}
        y = np.array([index[tuple(p)] for p in paths])
        X = self.features(texts)
        V, C = X.shape[1], len(self.classes)
        Y = np.zeros((n, C))
        Y[np.arange(n), y] = 1.0

        def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
            W = theta[: V * C].reshape(V, C)
            b = theta[V * C :]
            Z = X @ W + b
            Z -= Z.max(axis=1, keepdims=True)
            logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
            P = np.exp(logp)
            G = (P - Y) / n
            value = -(logp * Y).sum() / n + 0.5 * self.l2 * float((W * W).sum())
            grad_w = X.T @ G + self.l2 * W
            return value, np.concatenate([np.asarray(grad_w).ravel(), G.sum(axis=0)])

        theta0 = np.zeros(V * C + C)
        if self.solver == "numpy":
            x, _ = minimize_lbfgs(loss, theta0, max_iter=self.max_iter)
        else:
            import scipy.optimize  # ~1 s to import: only when a model is trained

            x = scipy.optimize.minimize(
                loss, theta0, jac=True, method="L-BFGS-B", options={"maxiter": self.max_iter}
            ).x
        self.W = x[: V * C].reshape(V, C)
        self.b = x[V * C :]
        return self

    # ------------------------------------------------------------------ prediction
    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:
        """Class probabilities, shape ``(len(texts), len(classes))``."""
        if not self.classes:
            raise InputError("the relation-path model is not trained; call fit() or load()")
        Z = self.features(texts) @ self.W + self.b
        Z -= Z.max(axis=1, keepdims=True)
        P = np.exp(Z)
        return P / P.sum(axis=1, keepdims=True)

    def predict(self, texts: Sequence[str], top_n: int = 3) -> list[list[tuple[Path_, float]]]:
        """The ``top_n`` most probable paths of every question, with probabilities."""
        P = self.predict_proba(texts)
        top = np.argsort(-P, axis=1, kind="stable")[:, :top_n]
        return [[(self.classes[k], float(P[i, k])) for k in row] for i, row in enumerate(top)]

    # ------------------------------------------------------------------ persistence
    def settings(self) -> dict[str, Any]:
        """Everything but the arrays (:data:`ARRAYS`), as JSON: what :meth:`restore` reads."""
        return {"l2": self.l2, "max_iter": self.max_iter, "min_df": self.min_df,
                "vocab": list(self.vocab), "classes": [list(c) for c in self.classes]}

    @classmethod
    def restore(cls, settings: Mapping[str, Any], arrays: Mapping[str, np.ndarray],
                what: str) -> RelationPathModel:
        """A model from its :meth:`settings` and arrays; ``what`` names it in the error
        raised when the arrays do not match its vocabulary and classes."""
        m = cls(l2=float(settings["l2"]), max_iter=int(settings["max_iter"]),
                min_df=int(settings["min_df"]))
        m.vocab = {str(g): i for i, g in enumerate(settings["vocab"])}
        m.classes = [tuple(str(x) for x in c) for c in settings["classes"]]
        m.W, m.b, m.idf = (np.asarray(arrays[n]) for n in ARRAYS)
        if (m.W.shape != (len(m.vocab), len(m.classes)) or m.b.shape != (len(m.classes),)
                or m.idf.shape != (len(m.vocab),)):
            raise ArtefactError(f"{what} arrays do not match its vocabulary/classes; fit it again")
        return m

    def save(self, path: str | Path) -> Path:
        """Write ``model.npz`` + ``model.json`` into directory ``path`` (atomically)."""
        path = Path(path)
        with atomic_dir(path, kind="relpath-model") as tmp:
            np.savez(tmp / "model.npz", **{n: getattr(self, n) for n in ARRAYS})
            meta = {"format": FORMAT, **self.settings()}
            (tmp / "model.json").write_text(json.dumps(meta), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> RelationPathModel:
        """Open a model saved by :meth:`save` (no pickle)."""
        path = Path(path)
        meta = read_model_json(path, (FORMAT,), "a relation-path model; train one first")
        try:
            arrays = np.load(path / "model.npz", allow_pickle=False)
        except (OSError, ValueError) as e:
            raise ArtefactError(f"{path}/model.npz: missing or damaged ({e}); train the model again") from None
        try:
            return cls.restore(meta, arrays, f"{path}: model")
        except (KeyError, TypeError, ValueError) as e:
            raise ArtefactError(f"{path}: damaged relation-path model ({e!r}); train it again") from None


def read_model_json(path: Path, formats: Sequence[str], what: str) -> dict[str, Any]:
    """``path/model.json`` of a saved model: a JSON object whose ``format`` is one of
    ``formats`` (the current one first), else :class:`ArtefactError` (``what``: what the directory should be and
    how to make one)."""
    try:
        meta = json.loads((path / "model.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ArtefactError(f"{path}: not {what} ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") not in formats:
        found = meta.get("format") if isinstance(meta, dict) else meta
        raise ArtefactError(f"{path}/model.json: unsupported format {found!r}; "
                            f"expected {formats[0]}")
    return meta


def accuracy(model: RelationPathModel, texts: Sequence[str], paths: Sequence[Sequence[str]]) -> float:
    """Share of questions whose most probable path is the given one."""
    pred = model.predict(texts, top_n=1)
    return float(np.mean([p[0][0] == tuple(g) for p, g in zip(pred, paths, strict=True)])) if texts else 0.0


def label_paths(qtypes: Sequence[str], schema: Schema) -> list[Path_]:
    """:func:`qtype_to_path` over many labels (cached per distinct label)."""
    cache: Mapping[str, Path_] = {q: qtype_to_path(q, schema) for q in set(qtypes)}
    return [cache[q] for q in qtypes]
