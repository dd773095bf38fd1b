"""Entity binding of IMPLIRET-style tuple sets (``synth.impliret.bind``): topics and main
conversants distinct across a pool, people and brands distinct within a set, answers unique,
the query in IMPLIRET's wording, the JSONL record of each style; too short a lexicon named."""

from __future__ import annotations

import dataclasses
from datetime import date

import numpy as np
import pytest

from skbsearch.core.errors import InputError
from skbsearch.synth.impliret.bind import bind_set, long_date, money, pool_entities
from skbsearch.synth.impliret.lexicons import Lexicons, load_lexicons
from skbsearch.synth.impliret.tuples import arithmetic_tuple_set


@pytest.fixture(scope="module")
def lex() -> Lexicons:
    return load_lexicons()


def test_dates_and_money_in_impliret_wording() -> None:
    assert long_date(date(2024, 2, 7)) == "February 07, 2024"
    assert money(1950.4) == "$1,950" and money(50) == "$50"


def test_pool_entities_are_distinct_across_the_pool(lex: Lexicons) -> None:
    rng = np.random.default_rng(0)
    topics, mains = pool_entities("arithmetic", "multi", 6, lex, rng)
    assert mains == [] and len({(c.name, item) for c, item in topics}) == 6
    topics, mains = pool_entities("temporal", "uni", 6, lex, rng)
    assert topics == [None] * 6 and len({p.name for p in mains}) == 6
    events, _ = pool_entities("wknow", "multi", 4, lex, rng)
    assert len(set(events)) == 4 and set(events) <= set(lex.events)
    few = dataclasses.replace(lex, people=lex.people[:3])
    with pytest.raises(InputError, match="need 4 distinct main conversants.*has 3") as e:
        pool_entities("arithmetic", "uni", 4, few, rng)
    assert e.value.field == "lexicons"


def test_a_forum_set_binds_one_item_many_people_and_unique_answers(lex: Lexicons) -> None:
    rng = np.random.default_rng(1)
    topic = pool_entities("arithmetic", "multi", 1, lex, rng)[0][0]
    tuples = arithmetic_tuple_set(6, "multi", rng)
    reserved = frozenset(p.name for p in lex.people[:50])
    scen = bind_set("arithmetic", "multi", 3, tuples, topic, None, lex, rng, ["Hi all."], reserved)
    assert len({s.speaker.name for s in scen}) == 6 and not {s.speaker.name for s in scen} & reserved
    assert len({s.answer for s in scen}) == 6 and len({s.forum_question for s in scen}) == 1
    cat, item = topic
    for s, t in zip(scen, tuples, strict=True):
        assert s.question == f"What is the brand and model of the {item.lower()} that cost {money(t.p2)}?"
        f = s.fields
        assert f["brand"] in cat.high + cat.low and s.answer == f"{f['brand']} {f['model_bought']} model"
        assert (f["model_bought"] > f["model_other"]) == (t.e == "Higher")
        assert s.record(9) == {"id": 9, "tuple_set_id": 3, "question": s.question, "answer": s.answer,
                               "forum_question": s.forum_question}


def test_a_chat_set_binds_one_main_speaker_and_brands_that_share_no_word(lex: Lexicons) -> None:
    rng = np.random.default_rng(2)
    main = lex.people[5]
    tuples = arithmetic_tuple_set(5, "uni", rng)
    scen = bind_set("arithmetic", "uni", 0, tuples, None, main, lex, rng, ["Hey"])
    assert all(s.speaker == main and s.partner is not None and s.partner != main for s in scen)
    assert len({s.partner.name for s in scen}) == 5
    for s, t in zip(scen, tuples, strict=True):
        assert s.question == f"What did {main.name} buy for {money(t.p2)}?"
        bought, other = s.fields["brand_bought"], s.fields["brand_other"]
        assert s.answer == f"{bought} {s.fields['item'].lower()}"
        words = [{w for w in b.lower().replace("(", " ").replace(")", " ").split() if len(w) > 2} for b in (bought, other)]
        assert not words[0] & words[1]
        assert s.record(0) == {"id": 0, "tuple_set_id": 0, "question": s.question, "answer": s.answer,
                               "main_speaker": main.name}
