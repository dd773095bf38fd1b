"""Synthesis on any KG: persona from the dominant types, bounded metapath sampling, target
types without descriptions, readable relation words, progress lines when not a terminal."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.kb.builder import SKBBuilder
from skbsearch.synth.queries.templates import (
    candidate_paths,
    default_targets,
    relation_words,
    step_phrase,
)
from skbsearch.synth.queries.text import auto_role

runner = CliRunner()


def test_persona_follows_the_dominant_types():
    types = ["film", "person", "disease"]
    assert auto_role(types) == "doctor"  # by names alone (old behaviour, no counts)
    assert auto_role(types, [1800, 4700, 39]) == "researcher"  # 39 diseases of 6,539 nodes
    assert auto_role(types, [10, 10, 900]) == "doctor"
    assert auto_role(["product", "brand", "person"], [500, 50, 100]) == "customer"


def test_relation_words_never_show_raw_ids():
    assert relation_words("film (actor)") == "film"
    assert relation_words("position (/soccer/football_team/current_roster./sports/roster/position)") == "position"
    assert relation_words("/film/film/genre") == "genre"
    assert "/" not in step_phrase("nominated for (award nominee)^-1", "Jaws")
    assert step_phrase("has_brand", "Foxfield") == "with brand Foxfield"


def _kg():
    """A KG without descriptions: many people, fewer films, a few cities; a shared label field."""
    b = SKBBuilder()
    for i in range(40):
        b.add_node(f"p{i}", "person", f"Person {i}", {"categories": "person; actor"})
    for i in range(20):
        b.add_node(f"f{i}", "film", f"Film {i}", {"categories": "film"})
        b.add_edge(f"f{i}", "starring", f"p{i}")
        b.add_edge(f"f{i}", "starring", f"p{i + 20}")
    for i in range(4):
        b.add_node(f"c{i}", "city", f"City {i}", {"categories": "city"})
    for i in range(40):
        b.add_edge(f"p{i}", "born_in", f"c{i % 4}")
    return b.build()


def test_targets_without_descriptions_are_the_dominant_types():
    kb = _kg()
    # "categories" is a label many nodes share, not a description: targets by size
    assert default_targets(kb) == ["person"]  # 40 of 64 nodes
    assert default_targets(kb, cover=0.8) == ["person", "film"]


def test_candidate_paths_are_bounded_and_shortest_first():
    steps = {"a": [(f"r{i}", "a", 1) for i in range(30)]}  # 30 steps: 27,000 three-hop paths
    got = candidate_paths(steps, ["a"], 3, 100, np.random.default_rng(0))
    assert len(got) <= 100
    hops = [len(p) for _, p, _ in got]
    assert hops == sorted(hops) and hops[0] == 1 and max(hops) == 3
    again = candidate_paths(steps, ["a"], 3, 100, np.random.default_rng(0))
    assert got == again  # seeded


def test_synth_prints_progress_lines_when_not_a_terminal(tmp_path):
    kb_dir = tmp_path / "kg.skb"
    _kg().save(kb_dir)
    out = tmp_path / "q"
    r = runner.invoke(app, ["synth", "queries", str(kb_dir), str(out), "--n", "5", "--time-budget", "30"])
    assert r.exit_code == 0, r.output
    assert "grounding metapaths:" in r.output  # plain progress lines (CliRunner is no terminal)
    r = runner.invoke(app, ["synth", "queries", str(kb_dir), str(tmp_path / "q2"), "--n", "5", "-q"])
    assert r.exit_code == 0 and "grounding" not in r.output


@pytest.mark.parametrize("noun,out", [
    ("city", "cities"), ("film", "films"), ("thing that plays for", "things that play for"),
    ("thing that is located in", "things that are located in"), ("thing with gender", "things with gender"),
    ("thing something acted in", "things something acted in"),
])
def test_plural_of_type_names_read_off_relation_texts(noun, out):
    from skbsearch.synth.queries.text import plural

    assert plural(noun) == out
