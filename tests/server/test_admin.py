"""``POST /admin/update`` below the route (server/admin.py): the admin token and the bearer
header, the body read as standard JSON only, and an update committed from the body's lists
with errors named by list and position, never a server path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from live_data import build

from skbsearch.core.errors import InputError
from skbsearch.kb import SKB
from skbsearch.server.admin import (
    MAX_DEPTH,
    TOKEN_ENV,
    apply_update,
    authorised,
    bearer_token,
    commit_update,
    read_body,
    read_token,
)

TOKEN = "s3cret-admin-token-0123456789"


def _node(i: int, name: str = "red wool hat") -> dict:
    return {"id": f"n{i}", "type": "product", "name": name, "description": "warm", "price": 10}


@pytest.fixture
def skb_dir(tmp_path: Path) -> Path:
    out = tmp_path / "skb"
    build(tmp_path / "src", [_node(i) for i in range(5)], [], out)
    return out


def test_bearer_header_follows_rfc_6750() -> None:
    assert bearer_token(f"Bearer {TOKEN}") == TOKEN
    assert bearer_token(f"bearer {TOKEN}") == TOKEN and bearer_token(f"BEARER   {TOKEN}") == TOKEN
    for bad in (TOKEN, f"Basic {TOKEN}", "Bearer", "Bearer ", f"Bearer{TOKEN}", f"Bearer a {TOKEN}", None):
        assert bearer_token(bad) is None, bad


def test_the_token_comes_from_a_file_or_the_environment(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    assert read_token(None) is None
    (tmp_path / "t").write_text(f"  {TOKEN}\n")
    assert read_token(tmp_path / "t") == TOKEN
    monkeypatch.setenv(TOKEN_ENV, "env-token-0123456789")
    assert read_token(None) == "env-token-0123456789" and read_token(tmp_path / "t") == TOKEN
    (tmp_path / "short").write_text("abc")
    with pytest.raises(InputError, match="at least 16 characters") as e:
        read_token(tmp_path / "short")
    assert e.value.field == "admin-token"


def test_only_the_right_bearer_token_is_authorised() -> None:
    assert authorised(f"Bearer {TOKEN}", TOKEN)
    assert not authorised(f"Bearer {TOKEN}x", TOKEN) and not authorised(TOKEN, TOKEN)
    assert not authorised(None, TOKEN) and not authorised("Bearer \ud800", TOKEN)


@pytest.mark.parametrize(("raw", "match"), [
    (b"\xff\xfe", "must be a JSON object"),
    (b"[1, 2]", "must be a JSON object"),
    (b"{nodes: 1}", "must be a JSON object"),
    (b'{"nodes": [{"price": NaN}]}', "NaN is not a JSON number"),
    (b'{"nodes": ' + b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1) + b"}", "nests deeper than 32"),
    (b'{"nodes": [{"name": "a\\ud800"}]}', "unpaired surrogate"),
])
def test_a_body_is_standard_json_or_refused(raw: bytes, match: str) -> None:
    with pytest.raises(InputError, match=match):
        read_body(raw)


def test_a_good_body_is_read_as_is() -> None:
    body = {"nodes": [{"id": "n1", "price": 2.5}], "delete_nodes": ["n2"]}
    assert read_body(json.dumps(body).encode()) == body


@pytest.mark.parametrize(("body", "match", "field"), [
    ({"nodes": [], "rename": []}, r"unknown key\(s\) \['rename'\]", "rename"),
    ({"nodes": {"id": "n1"}}, "'nodes' must be a list", "nodes"),
    ({"delete_nodes": ["n1", ""]}, r"delete_nodes\[1\]: an id must be a non-empty string", "delete_nodes"),
    ({"delete_nodes": ["a\nb"]}, "no node id holds a line break", "delete_nodes"),
    ({"edges": ["n1 r n2"]}, r"edges\[0\]: expected an object", "edges"),
    ({"nodes": [_node(1), {**_node(2), "price": "cheap"}]}, r"nodes\[1\]: 'price' is a text field here", "price"),
])
def test_bad_bodies_name_the_list_and_position(skb_dir: Path, body: dict, match: str, field: str) -> None:
    with pytest.raises(InputError, match=match) as e:
        commit_update(skb_dir, body)
    assert e.value.field == field and "/tmp" not in str(e.value) and str(skb_dir) not in str(e.value)
    assert not (skb_dir / "generations").exists() or SKB.load(skb_dir).meta.get("generation", 0) == 0


def test_an_update_commits_one_generation_and_lists_stale_indexes(skb_dir: Path) -> None:
    out = apply_update(skb_dir, {"nodes": [_node(9, "blue cap")], "delete_nodes": ["n0"]})
    assert out["generation"] == 1 and out["stale_indexes"] == []
    skb = SKB.load(skb_dir)
    assert skb.has_node("n9") and not skb.has_node("n0") and skb.node("n9").name == "blue cap"
    with pytest.raises(InputError, match=r"delete_nodes\[0\]: no node with id '3' to delete"):
        commit_update(skb_dir, {"delete_nodes": [3]}, previous=skb)  # an int id: "3"
    assert commit_update(skb_dir, {"delete_nodes": ["n1"]}, previous=skb)["generation"] == 2
