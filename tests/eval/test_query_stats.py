"""STaRK query-set statistics (Table 4) on small inputs and on the official query sets."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.eval import query_file_stats, query_set_stats
from skbsearch.eval.query_stats import read_query_csv, shannon_entropy, type_token_ratio


def test_entropy_and_ttr() -> None:
    assert shannon_entropy(["a", "b", "a", "b"]) == pytest.approx(1.0)
    assert shannon_entropy(["a", "b", "c", "d"]) == pytest.approx(2.0)
    assert shannon_entropy([]) == 0.0
    assert type_token_ratio(["a", "b", "a", "c"]) == 0.75
    assert type_token_ratio([]) == 0.0


def test_query_set_stats_defaults() -> None:
    s = query_set_stats(["The cat sat", "the dog sat down"], [[1], [2, 3, 4]])
    assert s.n_queries == 2 and s.n_tokens == 7
    assert s.query_length_mean == 3.5 and s.query_length_max == 4
    assert s.answers_mean == 2.0 and s.answers_max == 3
    assert s.ttr_all == pytest.approx(6 / 7)  # "The" and "the" differ: case is kept
    assert s.ttr == pytest.approx(3 / 4)  # without NLTK stopwords: cat sat dog sat
    counts = [2, 1, 1, 1, 1, 1]
    assert s.entropy == pytest.approx(-sum(c / 7 * math.log2(c / 7) for c in counts))
    assert query_set_stats(["The cat", "the"], tokenizer="lower", ttr_stopwords="none").ttr == 2 / 3
    with pytest.raises(InputError, match="tokenizer"):
        query_set_stats(["x"], tokenizer="bpe")


def test_csv_reading(tmp_path: Path) -> None:
    f = tmp_path / "q.csv"
    f.write_text(
        'id,query,answer_ids\n1,find a red shoe,"[10, 11]"\n2,blue hat,[]\n', encoding="utf-8"
    )
    queries, answers = read_query_csv(f)
    assert queries == ["find a red shoe", "blue hat"] and answers == [[10, 11], []]
    assert query_file_stats(f).answers_mean == 1.0
    bad = tmp_path / "bad.csv"
    bad.write_text("id,text\n1,x\n", encoding="utf-8")
    with pytest.raises(InputError, match="query") as e:
        read_query_csv(bad)
    assert e.value.file == str(bad)


@pytest.mark.data
@pytest.mark.parametrize(
    ("name", "entropy", "ttr"),
    [("amazon", 10.39, 0.179), ("mag", 10.25, 0.180), ("primekg", 9.63, 0.143)],
)
def test_reproduces_stark_table4(shared_data: Path, name: str, entropy: float, ttr: float) -> None:
    path = shared_data / "stark-queries" / name / "stark_qa" / "stark_qa.csv"
    s = query_file_stats(path)
    assert s.entropy == pytest.approx(entropy, abs=0.006)
    assert s.ttr == pytest.approx(ttr, abs=0.0025)
