"""What stages are built against (stages/context.py): where each index of an SKB lives, a
missing BM25 index built in memory once (with a note) and other kinds refused with the
command that builds them, indexes at a given directory, values shared by stages (built once,
nothing stored on failure), and the rendered documents re-rankers read."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKBBuilder
from skbsearch.kb.store import SKB
from skbsearch.stages import StageContext


def _kb() -> SKB:
    b = SKBBuilder()
    b.add_node("p1", "product", "Trail Mug", {"description": "a ceramic cup"})
    b.add_node("b1", "brand", "Acme")
    b.add_edge("p1", "has_brand", "b1")
    return b.build()


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    _kb().save(tmp_path / "shop.skb")
    return tmp_path / "shop.skb"


def test_indexes_live_under_the_skb_unless_overridden(saved: Path, tmp_path: Path) -> None:
    ctx = StageContext(saved, index_dirs={"dense": tmp_path / "vectors"})
    assert ctx.kb_dir == saved and ctx.index_dir("bm25") == saved / "indexes" / "bm25"
    assert ctx.index_dir("dense") == tmp_path / "vectors"
    assert StageContext(_kb()).index_dir("bm25") is None  # an unsaved SKB has no directory


def test_a_missing_bm25_index_is_built_once_with_a_note(saved: Path) -> None:
    notes: list[str] = []
    ctx = StageContext(saved, notify=notes.append)
    index = ctx.index("bm25")
    assert ctx.index("bm25") is index and ctx.loaded_indexes() == [index]
    assert len(notes) == 1 and f"skb index {saved} --kind bm25" in notes[0]
    quiet: list[str] = []
    StageContext(_kb(), notify=quiet.append).index("bm25")
    assert quiet == []  # nowhere to save it: nothing to say


def test_other_missing_kinds_name_the_command_that_builds_them(saved: Path) -> None:
    with pytest.raises(InputError, match=f"no dense index at {saved / 'indexes'}.*'skb index {saved} "
                                         "--kind dense'") as e:
        StageContext(saved).index("dense")
    assert e.value.field == "index"
    with pytest.raises(InputError, match="no dense index; build it with"):
        StageContext(_kb()).index("dense")


def test_an_index_at_a_directory_is_opened_once_or_refused(saved: Path, tmp_path: Path) -> None:
    ctx = StageContext(saved)
    BM25Index.from_skb(ctx.kb).save(tmp_path / "other")
    index = ctx.index_at("bm25", tmp_path / "other")
    assert ctx.index_at("bm25", str(tmp_path / "other")) is index and index.path == tmp_path / "other"
    assert ctx.index("bm25") is not index  # the SKB's own is another one
    with pytest.raises(InputError, match=f"'skb index {saved} --kind bm25 --out {tmp_path / 'none'}'"):
        ctx.index_at("bm25", tmp_path / "none")


def test_shared_values_are_built_once_and_a_failure_stores_nothing() -> None:
    ctx = StageContext(_kb())
    calls: list[int] = []

    def slow() -> str:
        calls.append(1)
        time.sleep(0.05)
        return "table"

    threads = [threading.Thread(target=ctx.shared, args=("names", slow)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [1] and ctx.shared_value("names") == "table" and ctx.shared_values() == ["table"]

    def broken() -> str:
        raise RuntimeError("deadline")

    with pytest.raises(RuntimeError):
        ctx.shared("other", broken)
    assert ctx.shared_value("other") is None and ctx.shared("other", lambda: "ok") == "ok"


def test_documents_are_rendered_with_their_relations(tmp_path: Path) -> None:
    ctx = StageContext(_kb())
    text = ctx.doc_text("p1")
    assert "Trail Mug" in text and "a ceramic cup" in text and "Acme" in text
    assert ctx.doc_text("nope") == ""
    assert ctx.resolve_path("~/x") == Path.home() / "x" and ctx.resolve_path("a/b") == Path("a/b")
