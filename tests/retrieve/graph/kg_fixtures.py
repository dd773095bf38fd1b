"""Small hand-built SKBs and judged queries for the general graph stage's tests."""

from __future__ import annotations

from skbsearch.core.types import Qrels, Query
from skbsearch.kb import SKBBuilder
from skbsearch.kb.store import SKB

BRANDS = {"acme": "Acme", "zen": "Zenith", "bor": "Borealis"}
CATEGORIES = {"mug": ("Mugs", "mug"), "boot": ("Boots", "boots")}
# id: (name, brand, category, description, price, rating)
PRODUCTS = {
    "p1": ("Acme Trail Mug", "acme", "mug", "a ceramic cup, dishwasher safe", 12.0, 4.5),
    "p2": ("Acme Summit Mug", "acme", "mug", "enamel camping cup", 18.0, 3.9),
    "p3": ("Acme Ridge Boot", "acme", "boot", "leather hiking boots, waterproof", 90.0, 4.1),
    "p4": ("Acme Canyon Boot", "acme", "boot", "suede walking boots", 70.0, 3.5),
    "p5": ("Zenith Alpine Mug", "zen", "mug", "a ceramic cup, dishwasher safe", 30.0, 3.0),
    "p6": ("Zenith Cosy Mug", "zen", "mug", "a porcelain cup with a lid", 15.0, 4.8),
    "p7": ("Zenith Glacier Boot", "zen", "boot", "insulated winter boots", 120.0, 4.6),
    "p8": ("Borealis Fjord Boot", "bor", "boot", "rubber rain boots", 40.0, 4.0),
    "p9": ("Borealis Tundra Mug", "bor", "mug", "double-walled steel cup", 25.0, 4.2),
    "p10": ("Borealis Aurora Boot", "bor", "boot", "trail running shoes", 85.0, 4.4),
}
ALSO_BOUGHT = [("p3", "p6"), ("p3", "p9"), ("p7", "p2"), ("p7", "p6"), ("p8", "p1"), ("p8", "p5"),
               ("p10", "p5")]


def shop() -> SKB:
    """Ten products of three brands in two categories, with also_bought edges."""
    b = SKBBuilder()
    for bid, name in BRANDS.items():
        b.add_node(f"brand:{bid}", "brand", name)
    for cid, (name, _) in CATEGORIES.items():
        b.add_node(f"cat:{cid}", "category", name)
    for pid, (name, brand, cat, desc, price, rating) in PRODUCTS.items():
        b.add_node(pid, "product", name, {"description": desc}, {"price": price, "rating": rating})
        b.add_edge(pid, "has_brand", f"brand:{brand}")
        b.add_edge(pid, "has_category", f"cat:{cat}")
    for a, c in ALSO_BOUGHT:
        b.add_edge(a, "also_bought", c)
    return b.build()


BRAND_FORMS = ["{noun} by {b}", "show me {b} {noun}", "i want {noun} from {b}", "any {b} {noun}"]
BOUGHT_FORMS = ["something bought together with the {a}", "what do people buy with the {a}"]


def shop_queries() -> tuple[list[Query], Qrels]:
    """Judged queries: brand + category ones and also-bought ones (answers from the graph)."""
    queries: list[Query] = []
    qrels: dict[str, dict[str, int]] = {}
    for bid, bname in BRANDS.items():
        for cid, (_, noun) in CATEGORIES.items():
            ans = [p for p, v in PRODUCTS.items() if v[1] == bid and v[2] == cid]
            for form in BRAND_FORMS:
                qid = f"q{len(queries)}"
                queries.append(Query(qid, form.format(noun=noun, b=bname)))
                qrels[qid] = {p: 1 for p in ans}
    for a in dict.fromkeys(a for a, _ in ALSO_BOUGHT):
        for form in BOUGHT_FORMS:
            qid = f"q{len(queries)}"
            queries.append(Query(qid, form.format(a=PRODUCTS[a][0])))
            qrels[qid] = {c: 1 for x, c in ALSO_BOUGHT if x == a}
    return queries, Qrels(qrels)


MOVIES = {
    "Kismet": {"directed_by": ["William Dieterle"], "starred_actors": ["Ronald Colman", "Marlene Dietrich"],
               "has_genre": ["Drama"]},
    "Dishonored": {"directed_by": ["Josef von Sternberg"], "starred_actors": ["Marlene Dietrich"],
                   "has_genre": ["Drama"]},
    "Random Harvest": {"directed_by": ["Mervyn LeRoy"], "starred_actors": ["Ronald Colman", "Greer Garson"],
                       "has_genre": ["Romance"]},
    "Juarez": {"directed_by": ["William Dieterle"], "starred_actors": ["Paul Muni"], "has_genre": ["Drama"]},
}
TYPES = {"directed_by": "person", "starred_actors": "person", "has_genre": "genre"}


def movies() -> SKB:
    """Four movies with directors, actors and genres (ids = names)."""
    b = SKBBuilder()
    seen: set[str] = set()
    for movie, rels in MOVIES.items():
        b.add_node(movie, "movie", movie)
        seen.add(movie)
        for r, tails in rels.items():
            for t in tails:
                if t not in seen:
                    b.add_node(t, TYPES[r], t)
                    seen.add(t)
                b.add_edge(movie, r, t)
    return b.build()
