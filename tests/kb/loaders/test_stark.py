"""STaRK processed-format loader, on fixtures written exactly as stark_qa saves them."""

from __future__ import annotations

import math
import pickle
from pathlib import Path

import numpy as np
import pytest

from skbsearch.core.errors import InputError, UntrustedFileError
from skbsearch.kb.loaders import load, load_stark
from skbsearch.kb.loaders.stark import flatten

torch = pytest.importorskip("torch")


def save_files(path: Path, **files: object) -> Path:
    """Mirror of stark_qa.tools.io.save_files: dicts -> .pkl, tensors -> .pt."""
    path.mkdir(parents=True, exist_ok=True)
    for key, value in files.items():
        if isinstance(value, dict):
            with open(path / f"{key}.pkl", "wb") as f:
                pickle.dump(value, f)
        else:
            torch.save(value, path / f"{key}.pt")
    return path


def prime_fixture(root: Path) -> Path:
    node_info = {
        np.int64(0): {"id": "9796", "type": "gene/protein", "name": "PHYHIP", "source": "NCBI",
                      "details": {"summary": "Enables phytanoyl-CoA binding.",
                                  "alias": ["DYRK1AP3", "PAHX-AP1"], "_private": "skip"}},
        np.int64(1): {"id": 12345, "type": "disease", "name": "ataxia", "source": "MONDO",
                      "details": {"mondo_definition": "A loss of coordination.", "umls": math.nan}},
        np.int64(2): {"id": "DB001", "type": "drug", "name": "aspirin", "source": "DrugBank"},
    }
    return save_files(
        root / "processed",
        node_info=node_info,
        edge_index=torch.LongTensor([[0, 1, 2], [1, 0, 1]]),
        edge_types=torch.LongTensor([9, 9, 6]),
        edge_type_dict=dict(enumerate(["ppi", "carrier", "enzyme", "target", "transporter",
                                       "contraindication", "indication", "off-label use",
                                       "synergistic interaction", "associated with"])),
        node_types=torch.LongTensor([1, 0, 3]),
        node_type_dict={0: "disease", 1: "gene/protein", 3: "drug"},
    )


def amazon_fixture(root: Path) -> Path:
    node_info = {
        0: {"review": [{"reviewerID": "A1", "summary": "Great", "reviewText": "Works well.",
                        "vote": "3", "overall": 5.0}],
            "qa": [], "asin": "B0001", "title": "Yoga mat", "global_category": "Sports",
            "price": "$19.99", "brand": "Gaiam", "feature": ["Non-slip", "6 mm thick"],
            "rank": -1, "description": ["A mat", "for yoga."]},
        1: {"review": [], "qa": [{"question": "Is it thick?", "answer": "Yes."}], "asin": "B0002",
            "title": "Yoga block", "price": "$9.99", "brand": "Gaiam", "feature": [], "rank": 1203},
        2: {"brand_name": "Gaiam"},
        3: {"category_name": "yoga"},
    }
    return save_files(
        root / "processed" / "cache" / "brand-category-color",
        node_info=node_info,
        edge_index=torch.LongTensor([[0, 1, 0, 1, 0], [1, 0, 2, 2, 3]]),
        edge_types=torch.LongTensor([0, 1, 2, 2, 3]),
        edge_type_dict={0: "also_buy", 1: "also_view", 2: "has_brand", 3: "has_category"},
        node_type_dict={0: "product", 1: "brand", 2: "category"},
        node_types=torch.LongTensor([0, 0, 1, 2]),
    )


def mag_fixture(root: Path) -> Path:
    """MAG's processed dir has no type dicts: the built-in ones apply."""
    node_info = {
        0: {"id": 10, "mag_id": 111, "DisplayName": "Ada Lovelace", "PaperCount": 3,
            "CitationCount": -1, "type": "author"},
        1: {"id": 0, "mag_id": 222, "DisplayName": "Stanford University", "PaperCount": -1,
            "type": "institution"},
        2: {"id": 5, "mag_id": 333, "title": "On engines", "abstract": "We study engines.",
            "Date": "1843-01-01", "OriginalVenue": -1, "type": "paper"},
    }
    return save_files(
        root / "mag" / "processed",
        node_info=node_info,
        edge_index=torch.LongTensor([[0, 0], [1, 2]]),
        edge_types=torch.LongTensor([0, 3]),
        node_types=torch.LongTensor([0, 1, 3]),
    )


def test_refuses_pickles_without_trust(tmp_path: Path) -> None:
    prime_fixture(tmp_path)
    with pytest.raises(UntrustedFileError, match="trust_pickles=True") as ei:
        load_stark(tmp_path)
    assert "--trust-pickles" in str(ei.value) and "node_info.pkl" in str(ei.value)


def test_prime(tmp_path: Path) -> None:
    prime_fixture(tmp_path)
    skb = load(tmp_path, trust_pickles=True)  # format detected from processed/node_info.pkl
    assert skb.ids == ["0", "1", "2"] and skb.num_edges == 3
    gene = skb.node("0")
    assert (gene.type, gene.name) == ("gene/protein", "PHYHIP")
    assert gene.fields["details"] == "summary: Enables phytanoyl-CoA binding.\nalias: DYRK1AP3, PAHX-AP1"
    assert gene.fields["source"] == "NCBI" and gene.fields["orig_id"] == "9796"
    assert skb.node("1").fields["details"] == "mondo_definition: A loss of coordination."
    assert "orig_type" in skb.schema.text_fields  # STaRK's own 'type' key kept, renamed
    assert skb.schema.relation_roles["associated with"] == [None, None]
    assert skb.schema.relation_roles["indication"] == ["drug", "disease"]


def test_amazon_cache_dir(tmp_path: Path) -> None:
    amazon_fixture(tmp_path / "amazon")
    skb = load_stark(tmp_path / "amazon", trust_pickles=True)
    assert skb.meta["source"]["dataset"] == "amazon"
    p = skb.node("0")
    assert p.name == "Yoga mat" and p.type == "product"
    assert p.fields["review"] == "summary: Great; reviewText: Works well."
    assert p.fields["feature"] == "Non-slip\n6 mm thick"
    assert p.fields["description"] == "A mat\nfor yoga."
    assert p.fields["price"] == "$19.99"
    assert "rank" not in p.attributes  # -1 is STaRK's unknown marker
    assert skb.node("1").attributes["rank"] == 1203
    assert skb.node("1").fields["qa"] == "question: Is it thick?; answer: Yes."
    assert (skb.node("2").type, skb.node("2").name) == ("brand", "Gaiam")
    assert skb.schema.relation_roles["has_brand"] == ["product", "brand"]


def test_mag_builtin_type_dicts(tmp_path: Path) -> None:
    mag_fixture(tmp_path)
    skb = load_stark(tmp_path / "mag", trust_pickles=True)
    assert [skb.node(i).type for i in "012"] == ["author", "institution", "paper"]
    assert skb.node("0").name == "Ada Lovelace"
    assert skb.node("0").attributes == {"orig_id": 10, "mag_id": 111, "PaperCount": 3}
    assert skb.node("2").fields["abstract"] == "We study engines."
    assert "OriginalVenue" not in skb.schema.text_fields + list(skb.schema.attributes)
    assert set(skb.schema.relations) >= {"author___writes___paper"}


def test_missing_type_dict_unknown_dataset(tmp_path: Path) -> None:
    d = mag_fixture(tmp_path)
    (d.parent).rename(tmp_path / "kb")
    with pytest.raises(InputError, match="dataset") as ei:
        load_stark(tmp_path / "kb", trust_pickles=True, dataset=None)
    assert ei.value.file.endswith("node_type_dict.pkl") or ei.value.file.endswith("edge_type_dict.pkl")
    assert load_stark(tmp_path / "kb", trust_pickles=True, dataset="mag").num_nodes == 3


def test_edge_out_of_range(tmp_path: Path) -> None:
    d = prime_fixture(tmp_path)
    torch.save(torch.LongTensor([[0, 1, 2], [1, 0, 7]]), d / "edge_index.pt")
    with pytest.raises(InputError) as ei:
        load_stark(tmp_path, trust_pickles=True)
    e = ei.value
    assert (Path(e.file).name, e.line, e.field) == ("edge_index.pt", 3, "edge_index")


def test_unknown_edge_type_code(tmp_path: Path) -> None:
    d = prime_fixture(tmp_path)
    torch.save(torch.LongTensor([9, 42, 6]), d / "edge_types.pt")
    with pytest.raises(InputError) as ei:
        load_stark(tmp_path, trust_pickles=True)
    assert (Path(ei.value.file).name, ei.value.line, ei.value.field) == ("edge_types.pt", 2, "edge_types")


def test_node_info_and_types_disagree(tmp_path: Path) -> None:
    d = prime_fixture(tmp_path)
    torch.save(torch.LongTensor([1, 0, 3, 3]), d / "node_types.pt")
    with pytest.raises(InputError) as ei:
        load_stark(tmp_path, trust_pickles=True)
    assert (Path(ei.value.file).name, ei.value.line, ei.value.field) == ("node_info.pkl", 4, "node_info")


def test_tensor_file_not_a_tensor(tmp_path: Path) -> None:
    d = prime_fixture(tmp_path)
    (d / "edge_types.pt").write_bytes(b"not a torch file")
    with pytest.raises(InputError) as ei:
        load_stark(tmp_path, trust_pickles=True)
    assert Path(ei.value.file).name == "edge_types.pt"


def test_tensor_load_is_weights_only(tmp_path: Path) -> None:
    """A .pt file holding an arbitrary object is refused even with trust_pickles."""
    d = prime_fixture(tmp_path)
    torch.save({"edges": object()}, d / "edge_types.pt")
    with pytest.raises(InputError, match="cannot read as a tensor file"):
        load_stark(tmp_path, trust_pickles=True)


def test_no_processed_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no STaRK processed files"):
        load_stark(tmp_path, trust_pickles=True)


def test_flatten() -> None:
    assert flatten({"a": [1, 2], "b": {"c": "d"}}) == "a: 1, 2\nb: c: d"
    assert flatten(["x", None, "", "y"]) == "x\ny"
