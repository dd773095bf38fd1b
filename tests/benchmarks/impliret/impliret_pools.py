"""Two hand-written IMPLIRET pools (temporal and arithmetic, multispeaker) for the tests of
the pool reader, the protocol, the readers and ``skb bench impliret``."""

from __future__ import annotations

import json
from pathlib import Path

# Tuple set 0: kayaking (A, B); tuple set 1: baking (C, D). D's query asks C's date, so C
# meets its constraint and D (text match only) ranks second.
TEMPORAL = [
    {"id": 0, "tuple_set_id": 0, "document": "2024-03-10 09:00, Ana: I went kayaking 3 days ago on the lake.",
     "question": "Who went kayaking on March 7, 2024?", "answer": "Ana"},
    {"id": 1, "tuple_set_id": 0, "document": "2024-03-10 09:05, Ben: I went kayaking 2 days ago with friends.",
     "question": "Who went kayaking on March 8, 2024?", "answer": "Ben"},
    {"id": 2, "tuple_set_id": 1, "document": "2024-05-01 10:00, Cleo: I baked bread yesterday for my family.",
     "question": "Who baked bread on April 30, 2024?", "answer": "Cleo"},
    {"id": 3, "tuple_set_id": 1, "document": "2024-05-01 11:00, Dan: I baked bread 5 days ago at home.",
     "question": "Who baked bread on April 30, 2024?", "answer": "Dan"},
]
ARITHMETIC = [
    {"id": 0, "tuple_set_id": 0, "document": "2024-01-01 10:00, Eve: The Acme model 2020 costs 100 dollars, "
     "while the newer model 2021 is 2 times more expensive.",
     "question": "What is the brand and model of the phone that cost $200?", "answer": "Acme 2021 model"},
    {"id": 1, "tuple_set_id": 1, "document": "2024-01-02 10:00, Finn: The Zeta model 2018 costs 900 dollars, "
     "while the newer model 2019 is 3 times more expensive.",
     "question": "What is the brand and model of the phone that cost $2,700?", "answer": "Zeta 2019 model"},
]


def write_pool(folder: Path, name: str, rows: list[dict]) -> None:
    """Write ``rows`` as the pool file ``folder/name.jsonl``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def tiny_folder(root: Path) -> Path:
    """``root/impliret`` with the two pools (four pools of the six missing)."""
    d = root / "impliret"
    write_pool(d, "temporal_multispeaker", TEMPORAL)
    write_pool(d, "arithmetic_multispeaker", ARITHMETIC)
    return d
