"""MetaQA protocol pieces (benchmarks/metaqa/protocol.py): reading questions (and their
errors by file and line), the dev hash split, the KB built once and cached by content, walks
along a relation path, Hits@1 by answer name, the ambiguity split, batched runs with their
latency, and a hop's metrics with the reachability ceiling."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kgqa_fixtures import MOVIES, write_folder

from skbsearch.benchmarks.metaqa import ambiguity_split, read_questions
from skbsearch.benchmarks.metaqa.protocol import (
    content_digest,
    hits_at_1,
    in_train_half,
    load_kb,
    path_answers,
    read_split,
    run_pipeline,
)
from skbsearch.core.errors import InputError
from skbsearch.core.types import Query, Run


def test_read_questions_errors(tmp_path: Path) -> None:
    bad = tmp_path / "qa.txt"
    bad.write_text("who directed Kismet\tWilliam Dieterle\n", encoding="utf-8")
    with pytest.raises(InputError, match="topic entity"):
        read_questions(bad, 1)
    bad.write_text("who directed [Kismet]\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_questions(bad, 1)
    assert e.value.line == 1


def test_ambiguity_split_hand_computed() -> None:
    hits = np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    ceiling = np.array([True, False, True, True, True])
    top1 = np.array([1.0, 0.0, 0.5, 0.25, np.nan])  # the last has no qtype: left out
    out = ambiguity_split(hits, ceiling, top1)
    assert out["ambiguous"] == 0.5  # 2 of the 4 with a qtype
    assert out["hits@1_decidable"] == 0.5 and out["ceiling_decidable"] == 0.5
    assert out["hits@1_ambiguous"] == 0.5 and out["random_ambiguous"] == 0.375
    assert ambiguity_split(hits, ceiling, np.full(5, np.nan)) == {"ambiguous": 0.0}




def test_questions_with_their_types_ids_and_answers(tmp_path: Path) -> None:
    data = write_folder(tmp_path / "metaqa")
    one = read_split(data, 1, "dev")
    assert one[0].id == "1hop-qa_dev-1" and one[0].hop == 1 and one[0].qtype == "movie_to_director"
    assert one[0].answers == (MOVIES["Kismet"]["directed_by"][0],)
    multi = next(q for q in one if q.qtype == "actor_to_movie" and len(q.answers) > 1)
    assert set(multi.answers) <= set(MOVIES)  # answers split at '|'
    (data / "1-hop" / "qa_dev_qtype.txt").write_text("movie_to_director\n", encoding="utf-8")
    with pytest.raises(InputError, match="no question type for this line") as e:
        read_split(data, 1, "dev")
    assert e.value.line == 2
    assert all(q.qtype is None for q in read_questions(data / "2-hop" / "qa_dev.txt", 2))
    with pytest.raises(InputError, match="question file not found"):
        read_split(data, 3, "dev")


def test_the_dev_split_is_a_deterministic_hash_half() -> None:
    texts = [f"who directed [Film {i}]" for i in range(400)]
    half = [in_train_half(t) for t in texts]
    assert half == [in_train_half(t) for t in texts] and 150 < sum(half) < 250
    assert not any(in_train_half(t, 0.0) for t in texts) and all(in_train_half(t, 1.0) for t in texts)
    assert content_digest(b"a", b"b") != content_digest(b"ab") and len(content_digest(b"x")) == 16


def test_the_kb_is_built_once_and_cached_by_content(tmp_path: Path) -> None:
    data = write_folder(tmp_path / "metaqa")
    skb = load_kb(data, tmp_path / "cache")
    assert skb.path is not None and Path(skb.path).parent == tmp_path / "cache" / "metaqa"
    assert load_kb(data, tmp_path / "cache").path == skb.path  # loaded from the cache
    with open(data / "kb.tsv", "a", encoding="utf-8") as fh:
        fh.write("Kismet\thas_genre\tRomance\n")
    assert load_kb(data, tmp_path / "cache").path != skb.path  # new content, new entry
    with pytest.raises(InputError, match="MetaQA KB not found"):
        load_kb(tmp_path, tmp_path / "cache")


def test_paths_walk_away_from_the_topic_and_hits_go_by_name(tmp_path: Path) -> None:
    skb = load_kb(write_folder(tmp_path / "metaqa"), tmp_path / "cache")
    i = skb.index_of
    marlene = [int(i("Marlene Dietrich"))]
    films = path_answers(skb, marlene, ["starred_actors^-1"])
    assert sorted(skb.id_of(films)) == ["Dishonored", "Kismet"]
    costars = path_answers(skb, marlene, ["starred_actors^-1", "starred_actors"])
    assert sorted(skb.id_of(costars)) == ["Ronald Colman", "Victor McLaglen"]  # never Marlene again
    qs = read_split(tmp_path / "metaqa", 1, "dev")[:2]
    run = Run({qs[0].id: {"William Dieterle": 2.0, "Kismet": 1.0}, qs[1].id: {"Kismet": 1.0}})
    assert hits_at_1(run, skb, qs).tolist() == [1.0, 0.0]


def test_runs_are_batched_with_a_latency_a_question(tmp_path: Path) -> None:
    qs = read_split(write_folder(tmp_path / "metaqa"), 1, "dev")[:5]
    seen: list[int] = []

    def stage(batch: list[Query]) -> Run:
        return Run({q.id: {"x": float(len(batch))} for q in batch})

    run, ms = run_pipeline(stage, qs, batch_size=2, on_batch=seen.append)
    assert seen == [2, 2, 1] and [run[q.id]["x"] for q in qs] == [2.0, 2.0, 2.0, 2.0, 1.0]
    assert ms.shape == (5,) and (ms >= 0).all()
    assert np.isfinite(ms).all()
