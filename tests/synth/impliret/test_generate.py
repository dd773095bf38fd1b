"""Synthetic IMPLIRET pools (``synth.impliret.generate``, ``skb synth impliret``): binding,
implicit documents, failed verifications counted, determinism, the IMPLIRET file format, and
end to end through `skb bench impliret`'s protocol (the made-up gazetteer: conftest.py; the
lexicons: test_lexicons.py; the verifier: test_verify.py)."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.errors import InputError
from skbsearch.synth.impliret import generate_impliret, pool_name, write_pool
from skbsearch.synth.impliret.lexicons import load_lexicons
from skbsearch.synth.impliret.verify import bodies

CELLS = [(c, s) for c in ("arithmetic", "temporal", "wknow") for s in ("multi", "uni")]


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


@pytest.mark.parametrize(("kw", "field", "says"), [
    ({"category": "physics"}, "category", "unknown category"), ({"style": "duo"}, "style", "unknown style"),
    ({"verify": "human"}, "verify", "unknown verifier"), ({"verify": "both"}, "verify", "needs --llm"),
    ({"sets": 0}, "sets", ">= 1"), ({"retries": -1}, "sets", "retries >= 0")])
def test_arguments_out_of_range_are_refused(kw: dict, field: str, says: str) -> None:
    args = {"category": "temporal", "style": "multi", "sets": 1, "tuples": 2, **kw}
    with pytest.raises(InputError, match=says) as e:
        generate_impliret(**args)
    assert e.value.field == field


def test_progress_and_the_pool_files(tmp_path) -> None:
    seen: list[tuple[int, int]] = []
    pool = generate_impliret("temporal", "multi", sets=2, tuples=3, seed=4, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(k, 6) for k in range(1, 7)]
    assert pool.name == "temporal_multispeaker" and pool.report["synthetic"] is True
    path = write_pool(pool, tmp_path / "out")
    assert path == tmp_path / "out" / "temporal_multispeaker.jsonl" and path.read_text() == pool.jsonl()
    meta = json.loads((tmp_path / "out" / "temporal_multispeaker.meta.json").read_text())
    assert meta["documents"] == len(pool.records) and len(meta["records"]) == len(pool.truth)
    with pytest.raises(InputError, match="exists; pass --force"):
        write_pool(pool, tmp_path / "out")
    assert write_pool(pool, tmp_path / "out", force=True) == path
