"""Relation-path model: label mapping, training, prediction, safe save/load."""

from __future__ import annotations

import numpy as np
import pytest
from kgqa_fixtures import movie_kb

from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.kb.schema import Schema
from skbsearch.retrieve.graph.relpath import RelationPathModel, accuracy, path_key, qtype_to_path

SCHEMA = Schema(
    node_types=["movie", "person", "year", "rating"],
    relations=["directed_by", "written_by", "starred_actors", "release_year", "has_imdb_rating", "has_tags"],
    relation_roles={
        "directed_by": ["movie", None], "written_by": ["movie", None],
        "starred_actors": ["movie", None], "release_year": ["movie", "year"],
        "has_imdb_rating": ["movie", "rating"], "has_tags": ["movie", None],
    },
)


@pytest.mark.parametrize(
    ("qtype", "path"),
    [
        ("actor_to_movie", ("starred_actors^-1",)),
        ("movie_to_director", ("directed_by",)),
        ("writer_to_movie_to_year", ("written_by^-1", "release_year")),
        ("movie_to_imdbrating", ("has_imdb_rating",)),
        ("tag_to_movie", ("has_tags^-1",)),
        ("movie_to_actor_to_movie_to_director", ("starred_actors", "starred_actors^-1", "directed_by")),
    ],
)
def test_qtype_to_path(qtype: str, path: tuple[str, ...]) -> None:
    assert qtype_to_path(qtype, SCHEMA) == path


def test_qtype_to_path_uses_roles_of_a_real_skb() -> None:
    assert qtype_to_path("actor_to_movie_to_genre", movie_kb().schema) == ("starred_actors^-1", "has_genre")


def test_qtype_without_relation_fails() -> None:
    with pytest.raises(InputError):
        qtype_to_path("movie_to_budget", SCHEMA)
    with pytest.raises(InputError):
        qtype_to_path("movie", SCHEMA)


def synthetic() -> tuple[list[str], list[tuple[str, ...]]]:
    forms = {
        ("directed_by",): ["who directed ENT", "who was the director of ENT", "ENT was directed by who"],
        ("starred_actors",): ["who acted in ENT", "who starred in ENT", "the actors of ENT"],
        ("starred_actors^-1",): ["what films did ENT act in", "what movies did ENT star in", "ENT appears in which films"],
        ("starred_actors^-1", "directed_by"): ["who directed the films ENT acted in", "the movies starring ENT were directed by who"],
    }
    texts, paths = [], []
    for p, fs in forms.items():
        for f in fs:
            for k in range(3):
                texts.append(f if k == 0 else f"{f} please" if k == 1 else f"tell me {f}")
                paths.append(p)
    return texts, paths


def test_model_trains_and_predicts(tmp_path) -> None:  # noqa: ANN001
    texts, paths = synthetic()
    model = RelationPathModel(min_df=1).fit(texts, paths)
    assert accuracy(model, texts, paths) == 1.0
    pred = model.predict(["who directed the films ENT starred in"], top_n=2)[0]
    assert pred[0][0] == ("starred_actors^-1", "directed_by")
    assert pred[0][1] > pred[1][1]
    P = model.predict_proba(["who directed ENT", "unknown words only"])
    assert np.allclose(P.sum(axis=1), 1.0)
    model.save(tmp_path / "m")
    loaded = RelationPathModel.load(tmp_path / "m")
    assert loaded.classes == model.classes
    assert np.allclose(loaded.predict_proba(texts), model.predict_proba(texts))
    assert path_key(pred[0][0]) == "starred_actors^-1 -> directed_by"


def test_model_errors(tmp_path) -> None:  # noqa: ANN001
    with pytest.raises(InputError):
        RelationPathModel().predict(["x"])
    with pytest.raises(InputError):
        RelationPathModel().fit([], [])
    with pytest.raises(ArtefactError):
        RelationPathModel.load(tmp_path)


def test_a_saved_model_that_does_not_add_up_is_refused(tmp_path) -> None:  # noqa: ANN001
    import json

    texts, paths = synthetic()
    RelationPathModel(min_df=1).fit(texts, paths).save(tmp_path / "m")
    meta_file = tmp_path / "m" / "model.json"
    meta = json.loads(meta_file.read_text(encoding="utf-8"))
    meta_file.write_text(json.dumps({**meta, "vocab": meta["vocab"][:-1]}), encoding="utf-8")
    with pytest.raises(ArtefactError, match="do not match its vocabulary"):
        RelationPathModel.load(tmp_path / "m")
    meta_file.write_text(json.dumps({k: v for k, v in meta.items() if k != "classes"}),
                         encoding="utf-8")
    with pytest.raises(ArtefactError, match="damaged"):
        RelationPathModel.load(tmp_path / "m")
    meta_file.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ArtefactError, match="unsupported format"):
        RelationPathModel.load(tmp_path / "m")
