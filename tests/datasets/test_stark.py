"""STaRK query-set and saved-ranking readers (fixtures in the official layout; the real
files when ../shared/data is present)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.datasets.stark import (
    find_qa_dir,
    guess_dataset,
    read_stark_eval_results,
    read_stark_qa,
)


def qa_folder(root: Path) -> Path:
    d = root / "mag"
    (d / "stark_qa").mkdir(parents=True)
    (d / "split").mkdir()
    (d / "stark_qa" / "stark_qa.csv").write_text(
        'id,query,answer_ids\n5,papers on engines,"[100, 101]"\n7,who wrote it,[]\n9,x,[3]\n',
        encoding="utf-8")
    (d / "stark_qa" / "stark_qa_human_generated_eval.csv").write_text(
        "id,query,answer_ids,answer_ids_source\n10,b,[2],[2]\n2,a,[1],[1]\n", encoding="utf-8")
    (d / "split" / "test.index").write_text("9\n5\n7\n5\n", encoding="utf-8")
    return d


def test_read_split_in_file_order(tmp_path: Path) -> None:
    qa = read_stark_qa(qa_folder(tmp_path), "test")
    assert [q.id for q in qa.queries] == ["9", "5", "7"]  # file order, repeats once
    assert qa.dataset == "mag" and qa.split_path is not None
    assert qa.qrels == {"9": {"3": 1}, "5": {"100": 1, "101": 1}}
    assert qa.missing_answers == ["7"]
    assert [q.id for q in read_stark_qa(qa_folder(tmp_path / "b"), "test", limit=1).queries] == ["9"]


def test_human_split_sorted_by_id(tmp_path: Path) -> None:
    d = qa_folder(tmp_path)
    qa = read_stark_qa(d / "stark_qa", "human")  # the stark_qa folder itself works too
    assert [q.id for q in qa.queries] == ["2", "10"]
    assert qa.queries[0].meta == {"answer_ids_source": "[1]"}
    assert qa.split_path is None and qa.csv_path.name == "stark_qa_human_generated_eval.csv"


def test_errors(tmp_path: Path) -> None:
    d = qa_folder(tmp_path)
    with pytest.raises(InputError, match=r"split file not found \(splits here: test\)"):
        read_stark_qa(d, "train")
    with pytest.raises(InputError, match="no STaRK query folder"):
        find_qa_dir(tmp_path)
    (d / "split" / "test.index").write_text("9\n\n404\n", encoding="utf-8")
    with pytest.raises(InputError, match="'404' is not in stark_qa.csv") as ei:
        read_stark_qa(d, "test")
    assert ei.value.line == 3 and ei.value.file is not None and ei.value.file.endswith("test.index")


def test_guess_dataset() -> None:
    assert guess_dataset("/x/stark-queries/primekg/stark_qa") == "prime"
    assert guess_dataset("/x/amazon/qa") == "amazon"
    assert guess_dataset("/x/y") is None


def test_eval_results(tmp_path: Path) -> None:
    f = tmp_path / "eval_results_human_generated_eval.csv"
    f.write_text('idx,query_id,pred_rank,mrr,hit@1\n0,3,"[7, 2, 9]",0.5,0.0\n1,4,[1],1.0,1.0\n',
                 encoding="utf-8")
    res = read_stark_eval_results(f)
    assert res.run["3"] == {"7": 3.0, "2": 2.0, "9": 1.0}
    assert [d for d, _ in res.run.ranked("3")] == ["7", "2", "9"]
    assert res.metrics == {"3": {"mrr": 0.5, "hit@1": 0.0}, "4": {"mrr": 1.0, "hit@1": 1.0}}
    f.write_text('query_id,pred_rank\n3,"[7, 7]"\n', encoding="utf-8")
    with pytest.raises(InputError, match="repeats") as ei:
        read_stark_eval_results(f)
    assert ei.value.line == 2
    f.write_text("query_id,mrr\n3,1\n", encoding="utf-8")
    with pytest.raises(InputError, match="no pred_rank column"):
        read_stark_eval_results(f)


@pytest.mark.data
def test_real_splits(shared_data: Path) -> None:
    d = shared_data / "stark-queries"
    if not d.is_dir():
        pytest.skip("no stark-queries in the shared data")
    sizes = {name: len(read_stark_qa(d / name, "test").queries) for name in ("amazon", "mag", "primekg")}
    assert sizes == {"amazon": 1642, "mag": 2665, "primekg": 2801}
    human = read_stark_qa(d / "primekg", "human")
    assert len(human.queries) == 109 and human.dataset == "prime" and not human.missing_answers
    saved = read_stark_eval_results(d / "amazon/avatar-vss-ada002/eval_results_human_generated_eval.csv")
    assert len(saved.run) == 81 and {len(r) for r in saved.run.values()} == {1000}
