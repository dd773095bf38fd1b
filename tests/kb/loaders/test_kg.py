"""The public KG layout importer (``--format kg``) on small fixtures of each layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb.loaders import detect_format, load
from skbsearch.kb.loaders.kg import load_kg


def write(d: Path, name: str, lines: list[str]) -> Path:
    p = d / name
    p.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return p


def fb_like(d: Path, *, names: bool = True, relations: bool = True) -> Path:
    """A Freebase-shaped KG: path relations, mids, a compound (CVT) relation."""
    d.mkdir(parents=True, exist_ok=True)
    write(d, "train.tsv", [
        "/m/f1\t/film/film/directed_by\t/m/p1",
        "/m/f2\t/film/film/directed_by\t/m/p1",
        "/m/f1\t/film/film/release_date_s./film/film_regional_release_date/film_release_region\t/m/c1",
        "/m/p1\t/people/person/place_of_birth\t/m/c2",
        "/m/p2\t/people/person/place_of_birth\t/m/c2",
        "/m/p2\t/film/actor/film./film/performance/film\t/m/f1",
        "/m/c2\t/location/location/containedby\t/m/c1",
        "/m/c1\t/location/location/contains\t/m/c2",
    ])
    write(d, "valid.tsv", ["/m/f2\t/film/film/genre\t/m/g1",
                           "/m/f1\t/film/film/directed_by\t/m/p1"])  # a duplicate across splits
    write(d, "test.tsv", ["/m/p1\t/people/person/gender\t/m/x1"])
    if names:
        write(d, "entities.tsv", ["/m/f1\tJaws", "/m/f2\tDuel", "/m/p1\tSteven Spielberg",
                                  "/m/p2\tRoy Scheider", "/m/c1\tUnited States", "/m/c2\tCincinnati",
                                  "/m/g1\tThriller", "/m/x1\tMale", "/m/zz\tNever used"])
    if relations:
        write(d, "relations.tsv", ["/film/film/directed_by\tfilm film directed by"])
    return d


def test_fb_layout_names_relations_types(tmp_path):
    d = fb_like(tmp_path / "fb")
    assert detect_format(d) == "kg"
    skb = load(d)
    assert skb.num_nodes == 8 and skb.num_edges == 10
    assert skb.meta["duplicates_dropped"] == 1
    assert skb.meta["named_entities_without_triples"] == 1
    names = dict(zip(skb.ids, skb.column("name"), strict=True))
    assert names["/m/p1"] == "Steven Spielberg"
    rels = set(skb.schema.relations)
    assert {"directed by", "place of birth", "release region", "genre", "gender"} <= rels
    ids = skb.meta["relation_ids"]
    assert ids["directed by"] == "/film/film/directed_by"
    assert ids["release region"].endswith("/film_release_region")
    types = dict(zip(skb.ids, skb.column("type"), strict=True))
    assert types["/m/f1"] == types["/m/f2"] == "film"  # heads of /film/film/*
    assert types["/m/p1"] == types["/m/p2"] == "person"  # an actor is a person (merged)
    assert types["/m/c1"] == types["/m/c2"] == "location"
    assert "actor" in skb.node("/m/p2").fields["categories"]
    assert not any(r.startswith("/") for r in skb.schema.relations)


def test_without_names_or_relation_texts(tmp_path):
    d = fb_like(tmp_path / "bare", names=False, relations=False)
    skb = load_kg(d)
    names = dict(zip(skb.ids, skb.column("name"), strict=True))
    assert names["/m/p1"] == "/m/p1"  # an opaque id stays the name
    assert "directed by" in skb.schema.relations
    assert "relation_texts" in skb.meta and skb.meta["relation_texts"] == {}


def test_types_file_overrides(tmp_path):
    d = fb_like(tmp_path / "fb")
    tf = write(tmp_path, "types.tsv", ["/m/p1\tfilm director", "/m/unknown\tthing"])
    skb = load(d, "kg", types=str(tf))
    types = dict(zip(skb.ids, skb.column("type"), strict=True))
    assert types["/m/p1"] == "film director" and types["/m/p2"] == "person"
    assert skb.meta["types_given"] == 1 and skb.meta["types_file_unknown_ids"] == 1


def test_wn18rr_layout(tmp_path):
    d = tmp_path / "wn"
    d.mkdir()
    write(d, "train.txt", ["00001\t_hypernym\t00002", "00003\t_hypernym\t00002",
                           "00004\t_verb_group\t00005", "00001\t_derivationally_related_form\t00004"])
    write(d, "valid.txt", ["00003\t_member_of_domain_usage\t00006"])
    write(d, "test.txt", [])
    write(d, "entity2text.txt", ["00001\tdog, a domestic animal", "00002\tanimal, a living being"])
    write(d, "relation2text.txt", ["_hypernym\thypernym", "_verb_group\tverb group"])
    skb = load(d)
    assert skb.num_nodes == 6 and skb.num_edges == 5
    assert {"hypernym", "verb group", "member of domain usage", "derivationally related form"} == set(
        skb.schema.relations)
    # the names column holds "lemma, gloss": split on purpose into a name and a description
    dog = skb.node("00001")
    assert dog.name == "dog" and dog.fields["description"] == "a domestic animal"
    assert skb.node("00006").name == "00006"
    assert skb.meta["names_split"]["split"] == 2 and skb.meta["names_split"]["separator"] == ", "
    whole = load(d, split_names="no")
    assert whole.node("00001").name == "dog, a domestic animal"


def test_yago_layout_words_ids(tmp_path):
    d = tmp_path / "yago"
    d.mkdir()
    write(d, "train.txt", ["Barack_Obama\twasBornIn\tHonolulu", "Barack_Obama\thasGender\tmale",
                           "Michelle_Obama\thasGender\tfemale", "Michelle_Obama\tisMarriedTo\tBarack_Obama",
                           "Honolulu\tisLocatedIn\tUnited_States"])
    skb = load(d)
    assert skb.node("Barack_Obama").name == "Barack Obama"
    assert {"was born in", "has gender", "is married to", "is located in"} == set(skb.schema.relations)
    # tails of "has gender" are typed by the noun the relation names
    assert skb.node("male").type == skb.node("female").type == "gender"


def _yago_like(d: Path) -> Path:
    """A YAGO3-10-shaped KG (camelCase relation ids, words as entity ids, no types)."""
    d.mkdir()
    lines = []
    for i in range(12):
        p = f"Person_{i}"
        lines += [f"{p}\thasGender\t{'male' if i % 2 else 'female'}", f"{p}\twasBornIn\tCity_{i % 4}",
                  f"{p}\tisCitizenOf\tCountry_{i % 2}"]
        lines.append(f"{p}\tactedIn\tFilm_{i % 5}")
    lines += [f"City_{i}\tisLocatedIn\tCountry_{i % 2}" for i in range(4)]
    lines += [f"Club_{i}\tisLocatedIn\tCity_{i}" for i in range(3)]
    lines += [f"Country_{i}\thasCapital\tCity_{i}" for i in range(2)]
    write(d, "train.txt", lines)
    write(d, "valid.txt", [])
    write(d, "test.txt", [])
    return d


def test_types_on_a_kg_without_path_ids_are_named_from_relation_texts(tmp_path):
    """A role noun that most of a type's nodes carry names it (``is citizen of`` ->
    citizen); else its most distinctive relation as a noun phrase, never ``(subject)``."""
    skb = load(_yago_like(tmp_path / "yago"))
    types = dict(zip(skb.ids, skb.column("type"), strict=True))
    assert {types[f"Person_{i}"] for i in range(12)} == {"citizen"}
    assert types["male"] == types["female"] == "gender"
    assert types["Country_0"] == types["Country_1"] == "thing with capital"
    assert types["City_0"] == types["Club_0"] == "thing that is located in"
    assert types["Film_0"] == "thing something acted in"
    names = set(types.values())
    assert len(names) == len(set(skb.column("type")))
    assert not any("(subject)" in n or "(object)" in n for n in names)


def test_wn18rr_like_types_read_as_nouns(tmp_path):
    d = tmp_path / "wn"
    d.mkdir()
    nouns = [f"0{i:04d}" for i in range(10)]
    write(d, "train.txt", [f"{n}\t_hypernym\t{nouns[(i + 1) % 3]}" for i, n in enumerate(nouns)]
          + [f"{n}\t_has_part\t{nouns[-1 - (i % 2)]}" for i, n in enumerate(nouns[:4])]
          + ["10001\t_similar_to\t10002", "10002\t_similar_to\t10003"])
    write(d, "valid.txt", [])
    write(d, "test.txt", [])
    skb = load(d)
    types = dict(zip(skb.ids, skb.column("type"), strict=True))
    assert types["00003"] == "thing with hypernym"
    assert types["10001"].startswith("thing ")
    assert all("(" not in v for v in types.values())


def test_codex_layout_json_texts(tmp_path):
    d = tmp_path / "codex"
    d.mkdir()
    write(d, "train.txt", ["Q1\tP19\tQ2", "Q3\tP19\tQ2", "Q2\tP17\tQ4"])
    write(d, "valid.txt", ["Q1\tP27\tQ4"])
    write(d, "test.txt", ["Q3\tP27\tQ4"])
    (d / "entities.json").write_text(json.dumps({
        "Q1": {"label": "Ada Lovelace", "description": "English mathematician"},
        "Q2": {"label": "London", "description": "capital of England"},
        "Q4": {"label": "United Kingdom"}}), encoding="utf-8")
    (d / "relations.json").write_text(json.dumps({
        "P19": {"label": "place of birth"}, "P17": {"label": "country"},
        "P27": {"label": "country of citizenship"}}), encoding="utf-8")
    skb = load(d)
    node = skb.node("Q1")
    assert node.name == "Ada Lovelace" and node.fields["description"] == "English mathematician"
    assert skb.node("Q3").name == "Q3"
    assert set(skb.schema.relations) == {"place of birth", "country", "country of citizenship"}
    assert skb.meta["relation_ids"]["place of birth"] == "P19"


def test_wikidata5m_layout_aliases_and_texts(tmp_path):
    d = tmp_path / "w5m"
    d.mkdir()
    write(d, "wikidata5m_transductive_train.txt", ["Q1\tP19\tQ2", "Q2\tP17\tQ3"])
    write(d, "wikidata5m_transductive_valid.txt", ["Q1\tP27\tQ3"])
    write(d, "wikidata5m_transductive_test.txt", [])
    write(d, "wikidata5m_entity.txt", ["Q1\tAda Lovelace\tAugusta Ada King", "Q2\tLondon", "Q3\tUK"])
    write(d, "wikidata5m_relation.txt", ["P19\tplace of birth\tbirthplace", "P17\tcountry",
                                         "P27\tcountry of citizenship"])
    write(d, "wikidata5m_text.txt", ["Q1\tAda Lovelace was an English mathematician."])
    skb = load(d)
    node = skb.node("Q1")
    assert node.fields == {"aliases": "Augusta Ada King",
                           "description": "Ada Lovelace was an English mathematician."}
    assert "place of birth" in skb.schema.relations


@pytest.mark.parametrize("line,field", [
    ("/m/a\t/x/y/z", "tail"),
    ("/m/a\t\t/m/b", "relation"),
    ("/m/a\t  \t/m/b", "relation"),
    ("/m/a\t/x/y/z\t/m/b\textra", "tail"),
    ("/m/a\t/x/y/z^-1\t/m/b", "relation"),
])
def test_bad_line_names_file_line_field_and_writes_nothing(tmp_path, line, field):
    d = fb_like(tmp_path / "bad")
    with open(d / "valid.tsv", "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
    with pytest.raises(InputError) as e:
        load_kg(d)
    assert e.value.file == str(d / "valid.tsv") and e.value.line == 3 and e.value.field == field


def test_bad_utf8_and_bad_types_file(tmp_path):
    d = fb_like(tmp_path / "enc")
    with open(d / "test.tsv", "ab") as fh:
        fh.write(b"/m/a\t/x/y/z\t/m/\xff\n")
    with pytest.raises(InputError) as e:
        load_kg(d)
    assert e.value.file == str(d / "test.tsv") and e.value.line == 2
    d2 = fb_like(tmp_path / "ok")
    tf = write(tmp_path, "types.tsv", ["/m/p1\tperson", "/m/p2"])
    with pytest.raises(InputError) as e:
        load_kg(d2, types=tf)
    assert e.value.file == str(tf) and e.value.line == 2 and e.value.field == "text"


@pytest.mark.data
def test_fb15k237_counts(shared_data):
    d = shared_data / "fb15k237"
    if not d.is_dir():
        pytest.skip("fb15k237 not in shared data")
    skb = load_kg(d)
    assert skb.num_nodes == 14541
    assert skb.num_edges == 310116
    assert len(skb.schema.relations) == 237
    assert skb.meta["named_entities_without_triples"] == 410
    assert all("/" not in r for r in skb.schema.relations)  # readable, never a raw path
    assert skb.meta["relation_ids"]["release region (release date)"].endswith("/film_release_region")
    assert skb.meta["relation_ids"]["place of birth"] == "/people/person/place_of_birth"
    names = skb.column("name")
    types = skb.column("type")
    by_name = {n: t for n, t in zip(names, types, strict=True)}
    assert by_name["Tom Hanks"] == "person" and by_name["Jaws"] == "film"
    assert by_name["Honolulu"] == "location"


def test_empty_and_blank_text_files(tmp_path):
    d = fb_like(tmp_path / "e", names=False, relations=False)
    (d / "entities.tsv").write_text("", encoding="utf-8")
    (d / "entity2textlong.txt").write_text("\n\n", encoding="utf-8")
    skb = load_kg(d)
    assert skb.num_nodes == 8 and skb.node("/m/p1").name == "/m/p1"


def test_bad_line_in_names_file(tmp_path):
    d = fb_like(tmp_path / "n")
    with open(d / "entities.tsv", "a", encoding="utf-8") as fh:
        fh.write("/m/only-an-id\n")
    with pytest.raises(InputError) as e:
        load_kg(d)
    assert e.value.file == str(d / "entities.tsv") and e.value.line == 10 and e.value.field == "text"


def test_instance_of_shaped_relation_types_its_heads(tmp_path):
    """A relation shaped like Wikidata's 'instance of' (covers most entities, many classes
    that are few next to the instances, ~1 a head) types nodes by their class's name;
    nothing in the rule names the relation."""
    d = tmp_path / "w5m"
    d.mkdir()
    classes = [f"Q9{k:02d}" for k in range(12)]
    labels = ["human", "city", "film", "taxon", "river", "album", "band", "company",
              "school", "mountain", "book", "country"]
    lines = [f"Q{i}\tP31\t{classes[i % 12]}" for i in range(300)]
    lines += [f"Q{i}\tP17\tQ{i % 7}" for i in range(0, 300, 3)]
    write(d, "wikidata5m_transductive_train.txt", lines)
    write(d, "wikidata5m_entity.txt", [f"{c}\t{lab}" for c, lab in zip(classes, labels, strict=True)])
    write(d, "wikidata5m_relation.txt", ["P31\tinstance of", "P17\tcountry"])
    skb = load_kg(d)
    assert skb.meta["typing_relation"] == "instance of"
    assert skb.node("Q0").type == "human" and skb.node("Q13").type == "city"
    assert "instance of" in skb.schema.relations  # the edges stay
    # a gender-like relation (2 tails) or a peer relation never types nodes
    fb = load_kg(fb_like(tmp_path / "fb"))
    assert fb.meta["typing_relation"] is None


def test_codex_type_files(tmp_path):
    d = tmp_path / "codex"
    d.mkdir()
    write(d, "train.txt", ["Q1\tP19\tQ2", "Q3\tP19\tQ2", "Q2\tP17\tQ4"])
    (d / "entity2types.json").write_text(json.dumps(
        {"Q1": ["Q5"], "Q3": ["Q5", "Q36180"], "Q2": ["Q515"]}), encoding="utf-8")
    (d / "types.json").write_text(json.dumps(
        {"Q5": {"label": "human"}, "Q36180": {"label": "writer"}, "Q515": {"label": "city"}}),
        encoding="utf-8")
    skb = load_kg(d)
    assert [skb.node(x).type for x in ("Q1", "Q3", "Q2")] == ["human", "human", "city"]
    assert skb.meta["types_from_type_files"] == 3
    assert skb.node("Q4").type  # not listed: inferred


def test_cli_bad_line_writes_nothing(tmp_path):
    from typer.testing import CliRunner

    from skbsearch.cli import app

    d = fb_like(tmp_path / "bad")
    with open(d / "train.tsv", "a", encoding="utf-8") as fh:
        fh.write("/m/a\t/x/y/z\n")
    out = tmp_path / "out.skb"
    res = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["kb", "build", str(d), str(out), "--format", "kg"])
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert f"{d / 'train.tsv'}:9" in res.output and "tail" in res.output
    assert not out.exists() and not list(tmp_path.glob(".out.skb*"))


def test_a_missing_source_says_not_found(tmp_path: Path) -> None:
    for fmt in ("kg", None, "jsonl", "rdf"):
        with pytest.raises(InputError, match="not found") as e:
            load(tmp_path / "no-such-dir", fmt)
        assert "no-such-dir" in str(e.value)
