"""`skb synth impliret`: lexicons, binding, implicit documents, verification, determinism,
the IMPLIRET file format, and end to end through `skb bench impliret`'s protocol."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.errors import InputError
from skbsearch.synth.impliret import generate_impliret, pool_name, write_pool
from skbsearch.synth.impliret.lexicons import FILES, load_lexicons, packaged_lexicon_dir
from skbsearch.synth.impliret.verify import EnricherVerifier, bodies

CELLS = [(c, s) for c in ("arithmetic", "temporal", "wknow") for s in ("multi", "uni")]
_SYL = ["ka", "lo", "ven", "dra", "mir", "tes", "bor", "un", "zel", "quo", "rin", "sha"]


def _word(i: int, parts: int) -> str:
    w = "".join(_SYL[(i // len(_SYL) ** k + 3 * k) % len(_SYL)] for k in range(parts))
    return w.capitalize()


@pytest.fixture(scope="module")
def gazetteer(tmp_path_factory) -> Path:
    """A made-up gazetteer: 40 countries, two landmarks each, no real place names."""
    p = tmp_path_factory.mktemp("gaz") / "landmarks.jsonl"
    rows = []
    for c in range(40):
        country = _word(c, 3) + "ia"
        for k in range(2):
            rows.append({"itemQ": f"Q{c}_{k}", "itemLabel": f"{_word(c * 7 + k + 100, 2)}x {('Gallery', 'Arena')[k]}",
                         "countryQ": f"C{c}", "countryLabel": country, "adminEntityQ": f"R{c}",
                         "adminEntityLabel": _word(c + 500, 2) + " Province"})
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return p


def test_packaged_lexicons_and_licence() -> None:
    d = packaged_lexicon_dir()
    assert all((d / f).is_file() for f in FILES.values())
    assert "MIT" in (d / "LICENSE").read_text() and "Taghavi" in (d / "LICENSE").read_text()
    lex = load_lexicons()
    assert len(lex.people) > 300 and len(lex.shopping) == 20 and len(lex.travel_purposes) == 100
    assert len(lex.works_multi) == 200 and len(lex.works_once) == 50 and len(lex.events) == 50
    assert lex.people[1].role == "a dedicated park ranger"
    assert all(p.endswith(("busy", "with", "in")) for p in lex.gerund_occupations())


def test_user_lexicons_override_file_by_file(tmp_path) -> None:
    (tmp_path / "names.jsonl").write_text("".join(json.dumps({"name": f"Nm{i}", "persona": f"Nm{i} is a tester."}) + "\n"
                                                  for i in range(40)))
    lex = load_lexicons(tmp_path)
    assert [p.name for p in lex.people][:2] == ["Nm0", "Nm1"] and len(lex.shopping) == 20
    pool = generate_impliret("temporal", "multi", sets=1, tuples=10, seed=1, lexicons=tmp_path)
    assert all(re.match(r"^Nm\d+$", r["answer"]) for r in pool.records)
    (tmp_path / "events.txt").write_text("[not json")
    with pytest.raises(InputError, match="events.txt"):
        load_lexicons(tmp_path)
    with pytest.raises(InputError, match="not found"):
        load_lexicons(tmp_path / "missing")


@pytest.fixture(scope="module")
def pools(gazetteer) -> dict[tuple[str, str], object]:
    return {(c, s): generate_impliret(c, s, sets=3, tuples=8, seed=5, gazetteer=gazetteer) for c, s in CELLS}


def test_records_have_the_impliret_fields(pools) -> None:
    for (c, s), pool in pools.items():
        assert pool.name == pool_name(c, s) and pool.report["requested"] == 24
        assert len(pool.records) == pool.report["documents"] >= 22
        extra = "forum_question" if s == "multi" else "main_speaker"
        for i, r in enumerate(pool.records):
            assert list(r) == ["id", "tuple_set_id", "document", "question", "answer", extra]
            assert r["id"] == i and r["tuple_set_id"] in (0, 1, 2) and r["answer"]
        assert len({r["question"] for r in pool.records}) == len(pool.records)


def test_entities_follow_table_6(pools) -> None:
    for (_c, s), pool in pools.items():
        by_set: dict[int, list] = defaultdict(list)
        for r, t in zip(pool.records, pool.truth, strict=True):
            by_set[r["tuple_set_id"]].append((r, t))
        if s == "uni":
            mains = [{r["main_speaker"] for r, _ in v} for v in by_set.values()]
            assert all(len(m) == 1 for m in mains) and len(set().union(*mains)) == 3  # one per set, never reused
            for v in by_set.values():
                partners = [t["partner"] for _, t in v]
                assert len(set(partners)) == len(partners)  # second conversant changes every dialogue
                assert not set(partners) & set().union(*mains)
        else:
            qs = [{r["forum_question"] for r, _ in v} for v in by_set.values()]
            assert all(len(q) == 1 for q in qs)
            topics = [{t["topic"] for _, t in v} for v in by_set.values()]
            assert len(set().union(*topics)) == 3  # a topic per set, never reused
            for v in by_set.values():
                names = [t["speaker"] for _, t in v]
                assert len(set(names)) == len(names)


def test_documents_state_facts_only_implicitly(pools) -> None:
    for (c, s), pool in pools.items():
        for r, t in zip(pool.records, pool.truth, strict=True):
            doc, tup = r["document"], t["tuple"]
            lines = doc.splitlines()
            assert len(lines) == (10 if s == "uni" else 1)
            assert all(re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d, [^:]+: \S", ln) for ln in lines)
            body = bodies(doc)
            if c == "arithmetic":
                assert not re.search(rf"(?<![\d,.]){tup['p2']:,}(?![\d,])|(?<![\d,.]){tup['p2']}(?!\d)", body)
                assert tup["p2"] == tup["p1"] * tup["r"] or tup["p2"] * tup["r"] == pytest.approx(tup["p1"])
            elif c == "temporal":
                assert not re.search(r"\b(?:January|February|March|April|June|July|August|September|October|"
                                     r"November|December)\b|\d{4}-\d\d-\d\d", body)
            else:
                assert tup["country"] not in doc and tup["landmark"] in doc


def test_verifier_rejects_explicit_or_unreadable_documents(pools, gazetteer) -> None:
    from skbsearch.enrich import GazetteerEnricher
    from skbsearch.synth.impliret.bind import Scenario
    from skbsearch.synth.impliret.places import eligible_landmarks
    from skbsearch.synth.impliret.tuples import DateTuple, PlaceTuple, PriceTuple

    _, cues = eligible_landmarks(gazetteer)
    v = EnricherVerifier(GazetteerEnricher.from_jsonl(gazetteer), cues)
    lex = load_lexicons()
    who = lex.people[0]

    def scen(cat: str, tup: object) -> Scenario:
        return Scenario(cat, "multi", 0, tup, who, None, "", "", "")  # type: ignore[arg-type]

    price = scen("arithmetic", PriceTuple(1000, 1.5, "Higher", 1500))
    head = f"2024-03-10 10:00, {who.name}: "
    assert v(price, head + "The old one costs $1,000, while the new one is 1.5 times more expensive.").ok
    assert not v(price, head + "The old one costs $1,000 and the new one costs $1,500.").ok  # explicit
    assert not v(price, head + "The old one costs $1,000 and the new one is a bit more.").ok  # unreadable
    from datetime import date

    day = scen("temporal", DateTuple(date(2024, 3, 10), 3, date(2024, 3, 7)))
    assert v(day, head + "I was hiking three days ago.").ok
    assert not v(day, head + "I was hiking two days ago.").ok
    assert not v(day, head + "I was hiking on March 7, 2024.").ok
    row = json.loads(gazetteer.read_text().splitlines()[0])
    place = scen("wknow", PlaceTuple(row["itemLabel"], row["countryLabel"], row["itemQ"]))
    assert v(place, head + f"I went to a fair right behind {row['itemLabel']}.").ok
    assert not v(place, head + f"I went to a fair in {row['countryLabel']}, behind {row['itemLabel']}.").ok
    assert not v(place, head + "I went to a fair downtown.").ok


def test_failures_are_counted_dropped_or_kept(monkeypatch) -> None:
    import skbsearch.synth.impliret.generate as gen

    monkeypatch.setattr(gen, "realise", lambda s, rng, lex, cues=None: f"2024-01-01 10:00, {s.speaker.name}: Nothing to see.")
    pool = generate_impliret("arithmetic", "uni", sets=1, tuples=4, seed=0, retries=2)
    assert pool.records == [] and pool.report["dropped"] == 4
    assert pool.report["verification_failures"] == 12  # 3 draws per document
    assert any("not recovered" in k for k in pool.report["failure_reasons"])
    kept = generate_impliret("arithmetic", "uni", sets=1, tuples=4, seed=0, retries=0, keep_unverified=True)
    assert len(kept.records) == 4 and {t["generator"] for t in kept.truth} == {"unverified"}


def test_same_seed_same_bytes(tmp_path, gazetteer) -> None:
    runner = CliRunner()
    for d, seed in (("a", 3), ("b", 3), ("c", 4)):
        res = runner.invoke(app, ["synth", "impliret", str(tmp_path / d), "--category", "wknow", "--style", "uni",
                                  "--sets", "2", "--tuples", "6", "--seed", str(seed), "--gazetteer", str(gazetteer),
                                  "-q"])
        assert res.exit_code == 0, res.output
    files = ("wknow_unispeaker.jsonl", "wknow_unispeaker.meta.json")
    assert all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)
    assert (tmp_path / "a" / files[0]).read_bytes() != (tmp_path / "c" / files[0]).read_bytes()
    for cat, style in (("arithmetic", "multi"), ("temporal", "uni")):
        a = generate_impliret(cat, style, sets=2, tuples=7, seed=11).jsonl()
        assert a == generate_impliret(cat, style, sets=2, tuples=7, seed=11).jsonl()
        assert a != generate_impliret(cat, style, sets=2, tuples=7, seed=12).jsonl()


def test_cli_errors_and_several_runs_fill_one_folder(tmp_path) -> None:
    runner = CliRunner()
    args = ["synth", "impliret", str(tmp_path), "--sets", "1", "--tuples", "5", "-q"]
    assert runner.invoke(app, [*args, "--category", "arithmetic", "--style", "uni"]).exit_code == 0
    assert runner.invoke(app, [*args, "--category", "temporal", "--style", "multi"]).exit_code == 0
    again = runner.invoke(app, [*args, "--category", "arithmetic", "--style", "uni"])
    assert again.exit_code == 2 and "--force" in again.output
    assert runner.invoke(app, [*args, "--category", "arithmetic", "--style", "uni", "--force"]).exit_code == 0
    assert sorted(p.name for p in tmp_path.glob("*.jsonl")) == ["arithmetic_unispeaker.jsonl",
                                                                 "temporal_multispeaker.jsonl"]
    res = runner.invoke(app, [*args, "--category", "wknow", "--style", "uni"])
    assert res.exit_code == 2 and "--gazetteer" in res.output
    res = runner.invoke(app, [*args, "--category", "physics", "--style", "uni"])
    assert res.exit_code == 2 and "unknown category" in res.output
    res = runner.invoke(app, [*args, "--category", "temporal", "--style", "uni", "--verify", "llm"])
    assert res.exit_code == 2 and "needs --llm" in res.output
    with pytest.raises(InputError, match="not a folder"):
        write_pool(generate_impliret("temporal", "multi", sets=1, tuples=2), tmp_path / "arithmetic_unispeaker.jsonl")


def test_end_to_end_all_pools_through_the_benchmark(tmp_path, gazetteer) -> None:
    """3 categories x 2 styles, 1 set of 30 tuples each, no LLM, read by skb bench impliret."""
    from skbsearch.benchmarks.impliret import discover_pools, load_pool, run_impliret

    runner = CliRunner()
    for c, s in CELLS:
        res = runner.invoke(app, ["synth", "impliret", str(tmp_path), "--category", c, "--style", s, "--sets", "1",
                                  "--tuples", "30", "--gazetteer", str(gazetteer), "--json"])
        assert res.exit_code == 0, res.output
        info = json.loads(res.stdout)
        assert info["synthetic"] and info["documents"] == 30 and info["by_template"] == 30
    found, missing = discover_pools(tmp_path)
    assert missing == [] and len(found) == 6
    assert all(len(load_pool(p)) == 30 for p in found.values())
    enrich = run_impliret(tmp_path, pipeline="enrich", gazetteer=gazetteer)
    bm25 = run_impliret(tmp_path, pipeline="bm25")
    assert enrich.metrics["ndcg@10"] == pytest.approx(1.0)  # every fact recoverable, one positive each
    assert bm25.metrics["ndcg@10"] < 0.4  # no lexical shortcut to the positive


class _FakeLLM:
    """Answers like a well-behaved LLM would for temporal multi-speaker posts (or with junk)."""

    model = "fake"

    def __init__(self, good: bool) -> None:
        self.good = good
        self.calls = 0

    def chat(self, conversations, *, max_tokens=16, temperature=0.0):
        out = []
        for conv in conversations:
            self.calls += 1
            prompt = conv[-1]["content"]
            if "first phrases" in prompt:
                out.append("Great question!\nHappy to help.\n1. Count me in.")
            elif self.good and prompt.startswith("Task\nGenerate"):
                ctx = json.loads(prompt.rsplit("INPUT: ", 1)[1])
                out.append(f"{ctx['starting_phrase']} I was busy {ctx['topic']} {ctx['offset_days']}. It was fun.")
            else:
                out.append("Sorry, I cannot help with that.")
        return out


def test_llm_path_with_fallback_to_templates() -> None:
    good = _FakeLLM(good=True)
    pool = generate_impliret("temporal", "multi", sets=1, tuples=3, seed=2, llm=good, retries=1)
    assert pool.report["by_llm"] == 3 and pool.report["llm"] == "fake"
    assert pool.records[0]["document"].split(": ", 1)[1].startswith(("Great question!", "Happy to help.", "Count me in."))
    bad = _FakeLLM(good=False)
    pool = generate_impliret("temporal", "multi", sets=1, tuples=3, seed=2, llm=bad, retries=1)
    assert pool.report["llm_attempts"] == 6 and pool.report["verification_failures"] >= 6
    assert any(k.startswith("llm: dates read []") for k in pool.report["failure_reasons"])
    assert pool.report["template_fallbacks"] == 3 and pool.report["by_template"] == 3
    pool = generate_impliret("temporal", "multi", sets=1, tuples=2, seed=2, llm=_FakeLLM(True), verify="llm",
                             retries=0)
    assert pool.report["documents"] == 0 and pool.report["dropped"] == 2  # the fake never extracts dates


def test_parse_chat_needs_ten_utterances_from_both() -> None:
    from skbsearch.synth.impliret.llm import parse_chat

    lex = load_lexicons()
    from skbsearch.synth.impliret.bind import Scenario

    s = Scenario("arithmetic", "uni", 0, None, lex.people[0], None, "", "", "", partner=lex.people[1])  # type: ignore[arg-type]
    a, b = lex.people[0].name, lex.people[1].name
    ten = "\n".join(f"{(a, b)[k % 2]}: line {k}" for k in range(10))
    assert parse_chat(ten, s) == [((a, b)[k % 2], f"line {k}") for k in range(10)]
    assert parse_chat("\n".join(ten.splitlines()[:9]), s) is None
    assert parse_chat("\n".join(f"{a}: line {k}" for k in range(10)), s) is None
    stamped = "\n".join(f"2024-01-01 10:0{k}, **{(a, b)[k % 2]}**: line {k}" for k in range(10))
    assert parse_chat(stamped, s) == parse_chat(ten, s)
