"""`skb encoders` (cli/encoders.py): the named encoders and whether the static one is built
(its marker where --encoder static looks), and the build's refusals before any distilling."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import assert_clean_error, invoke


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_list_says_whether_static_is_built_and_where(_cache: Path) -> None:
    from skbsearch.encoders.static import MARKER, default_static_dir

    r = invoke("encoders", "list", "--json")
    assert r.exit_code == 0, r.output
    rows = {e["encoder"]: e for e in json.loads(r.stdout)["encoders"]}
    assert {"minilm", "static"} <= set(rows) and rows["minilm"]["path"] == ""
    assert rows["static"]["path"] == str(default_static_dir()) and str(_cache) in rows["static"]["path"]
    assert rows["static"]["what"].endswith("not built yet")
    default_static_dir().mkdir(parents=True)
    (default_static_dir() / MARKER).write_text("{}")
    rows = {e["encoder"]: e for e in json.loads(invoke("encoders", "list", "--json").stdout)["encoders"]}
    assert rows["static"]["what"].endswith("; built")
    table = invoke("encoders", "list")
    assert table.exit_code == 0 and "minilm" in table.output and "hub name" in table.output


def test_build_refuses_before_distilling(tmp_path: Path) -> None:
    from skbsearch.encoders.static import default_static_dir

    assert_clean_error(invoke("encoders", "build", "minilm"), "only the 'static' encoder")
    assert_clean_error(invoke("encoders", "build", "static", "--pca-dims", "64"),
                       "--pca-dims", "--out DIR")
    default_static_dir().mkdir(parents=True)
    assert_clean_error(invoke("encoders", "build", "static"), "exists", "--force")
    (tmp_path / "mine").mkdir()
    assert_clean_error(invoke("encoders", "build", "static", "--out", tmp_path / "mine",
                              "--pca-dims", "64"), "exists")
    r = invoke("encoders", "build", "static", "--pca-dims", "1")
    assert r.exit_code == 2 and "Invalid value for '--pca-dims'" in r.output
