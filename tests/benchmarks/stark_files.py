"""A small SKB in STaRK's processed format (Amazon-like, six products and two brands) and its
query folder, for the STaRK protocol's tests and ``skb bench stark``'s (writing them needs
torch)."""

from __future__ import annotations

import pickle
from pathlib import Path

PRODUCTS = [
    "Gaiam yoga mat non-slip",
    "Gaiam cork yoga block",
    "Hydro steel water bottle",
    "Thermos steel water bottle insulated",
    "Trail running shoes waterproof",
    "Camping lantern rechargeable",
]


def write_processed(root: Path) -> Path:
    """Amazon-like processed files (as stark_qa.tools.io.save_files writes them):
    products 0-5, then brand nodes 6-7 (not candidates)."""
    import torch

    d = root / "amazon" / "processed" / "cache" / "brand"
    d.mkdir(parents=True)
    node_info = {i: {"title": t, "asin": f"B{i:04d}"} for i, t in enumerate(PRODUCTS)}
    node_info[6] = {"brand_name": "Gaiam"}
    node_info[7] = {"brand_name": "Hydro"}
    files = {
        "node_info": node_info,
        "node_type_dict": {0: "product", 1: "brand"},
        "edge_type_dict": {0: "also_buy", 1: "has_brand"},
    }
    for key, value in files.items():
        with open(d / f"{key}.pkl", "wb") as fh:
            pickle.dump(value, fh)
    torch.save(torch.LongTensor([0] * 6 + [1, 1]), d / "node_types.pt")
    torch.save(torch.LongTensor([[3, 0, 1, 2], [2, 6, 6, 7]]), d / "edge_index.pt")
    torch.save(torch.LongTensor([0, 1, 1, 1]), d / "edge_types.pt")
    return d


def write_queries(root: Path) -> Path:
    """stark_qa.csv with 4 queries, test split = 3 of them, 2 human-generated queries."""
    qa = root / "qa" / "amazon"
    (qa / "stark_qa").mkdir(parents=True)
    (qa / "split").mkdir()
    (qa / "stark_qa" / "stark_qa.csv").write_text(
        "id,query,answer_ids\n"
        '10,non-slip yoga mat,[0]\n'
        '11,insulated steel water bottle,"[3, 2]"\n'
        '12,waterproof running shoes or a Gaiam thing,"[4, 6]"\n'
        '13,lantern,[5]\n', encoding="utf-8")
    (qa / "split" / "test.index").write_text("12\n10\n11\n", encoding="utf-8")
    (qa / "split" / "train.index").write_text("13\n", encoding="utf-8")
    (qa / "stark_qa" / "stark_qa_human_generated_eval.csv").write_text(
        "id,query,answer_ids,answer_ids_source\n"
        '1,rechargeable camping lantern,[5],[5]\n'
        '0,cork block for yoga,[1],[1]\n', encoding="utf-8")
    return qa
