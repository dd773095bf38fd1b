"""Seeded **synthetic** chat messages whose relevance is implicit (IMPLIRET-style).

Each message states a fact only implicitly — a relative date ("three days ago"), a relative
price ("two and a half times more expensive than the $780 one"), or a landmark whose
country is not named — and each query asks for the explicit fact ("on March 3, 2024",
"that cost $1,950", "in Japan"). One positive per query: the message it was written from.
Used by ``skb demo``; the landmarks are a small built-in gazetteer of real places.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from skbsearch.core.types import Qrels, Query

NAMES = ["Dante", "Alessia", "Henry", "Mina", "Kofi", "Sofia", "Ravi", "Lena", "Tomas", "Yuki", "Omar", "Ines"]
ACTIVITIES = [
    ("took a pottery class", "took a pottery class"),
    ("ran a half marathon", "ran a half marathon"),
    ("went to the dentist", "went to the dentist"),
    ("visited my grandmother", "visited their grandmother"),
    ("started a new painting", "started a new painting"),
    ("volunteered at the food bank", "volunteered at the food bank"),
]
ITEMS = [("laptop", ["Lenovo", "Dell", "Asus", "Acer"]), ("camera", ["Canon", "Nikon", "Fujifilm", "Sony"]),
         ("bicycle", ["Trek", "Giant", "Cannondale", "Specialized"]), ("phone", ["Nothing", "Pixel", "Nokia", "Motorola"])]
MULTIPLIERS = [("twice as expensive as", 2.0), ("two and a half times more expensive than", 2.5),
               ("three times the price of", 3.0), ("half the price of", 0.5)]
NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}
#: (landmark, region, country): a few real places, as a tiny gazetteer for the demo.
LANDMARKS = [
    ("Kinkaku-ji", "Kyoto Prefecture", "Japan"), ("Sagrada Família", "Barcelona", "Spain"),
    ("Rijksmuseum", "Amsterdam", "Netherlands"), ("Uffizi Gallery", "Florence", "Italy"),
    ("Hagia Sophia", "Istanbul", "Turkey"), ("Tate Modern", "London", "United Kingdom"),
]
PLACE_EVENTS = ["joined a photography walk", "went to a lecture", "attended a concert", "met an old friend"]


@dataclass
class ChatDataset:
    """Messages ``{doc_id: text}``, queries, qrels and the gazetteer records used."""

    documents: dict[str, str]
    queries: list[Query]
    qrels: Qrels
    gazetteer: list[dict[str, str]]


def _money(v: float) -> str:
    return f"${v:,.0f}"


def generate_chats(n_per_kind: int = 6, *, seed: int = 0, variety: int = 2) -> ChatDataset:
    """``3 * n_per_kind`` messages (temporal, arithmetic, world knowledge) and their queries.

    ``variety`` limits how many activities / items / events are used, so that several
    messages share their words and only the implicit fact tells them apart.
    """
    rng = np.random.default_rng(seed)
    docs: dict[str, str] = {}
    queries: list[Query] = []
    qrels: dict[str, dict[str, int]] = {}
    base = dt.datetime(2024, 10, 1, 9, 0)

    def add(kind: str, i: int, text: str, question: str) -> None:
        did = f"{kind}-{i}"
        docs[did] = text
        queries.append(Query(f"q-{did}", question, {"kind": kind, "synthetic": True}))
        qrels[f"q-{did}"] = {did: 1}

    for i in range(n_per_kind):
        who = NAMES[int(rng.integers(len(NAMES)))]
        when = base + dt.timedelta(days=int(rng.integers(0, 60)), minutes=int(rng.integers(0, 600)))
        ago = int(rng.integers(2, 10))
        act1, act3 = ACTIVITIES[int(rng.integers(min(variety, len(ACTIVITIES))))]
        event = when - dt.timedelta(days=ago)
        text = (f"{when:%Y-%m-%d %H:%M}, {who}: Busy week! I {act1} {NUMBER_WORDS[ago]} days ago, "
                "and it was great.")
        add("temporal", i, text, f"Who {act3} on {event:%B} {event.day}, {event.year}?")
    for i in range(n_per_kind):
        who = NAMES[int(rng.integers(len(NAMES)))]
        item, brands = ITEMS[int(rng.integers(min(variety, len(ITEMS))))]
        a, b = rng.choice(len(brands), size=2, replace=False)
        price = float(rng.integers(3, 12) * 100)
        phrase, mult = MULTIPLIERS[int(rng.integers(len(MULTIPLIERS)))]
        when = base + dt.timedelta(days=int(rng.integers(0, 60)))
        text = (f"{when:%Y-%m-%d %H:%M}, {who}: The {brands[a]} {item} costs {_money(price)}, while the "
                f"{brands[b]} {item} is {phrase} the {brands[a]} one. I bought the {brands[b]} {item}.")
        add("arithmetic", i, text, f"Who bought a {item} that cost {_money(price * mult)}?")
    for i in range(n_per_kind):
        who = NAMES[int(rng.integers(len(NAMES)))]
        landmark, _, country = LANDMARKS[i % len(LANDMARKS)]
        ev = PLACE_EVENTS[int(rng.integers(min(variety, len(PLACE_EVENTS))))]
        when = base + dt.timedelta(days=int(rng.integers(0, 60)))
        text = f"{when:%Y-%m-%d %H:%M}, {who}: Last weekend I {ev} right next to the {landmark}. Lovely day."
        add("wknow", i, text, f"Who {ev} in {country}?")
    gaz = [
        {"itemQ": f"L{k}", "itemLabel": lm, "countryQ": f"C{k}", "countryLabel": c,
         "adminEntityQ": f"R{k}", "adminEntityLabel": r}
        for k, (lm, r, c) in enumerate(LANDMARKS)
    ]
    return ChatDataset(docs, queries, Qrels(qrels), gaz)
