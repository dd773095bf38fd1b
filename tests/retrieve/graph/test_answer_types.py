"""Answer-type inference from a question's words against the SKB's own type vocabulary."""

from __future__ import annotations

from skbsearch.kb import SKBBuilder
from skbsearch.retrieve.graph.answer_types import AnswerTypes, answer_phrase, forms, singular


def _kb():
    """People with professions (class nodes: most in-links from people), films, countries."""
    b = SKBBuilder()
    b.add_node("prof:comedian", "profession", "Comedian")
    b.add_node("prof:director", "profession", "Film Director")
    b.add_node("c:us", "country", "United States")
    for i in range(30):
        b.add_node(f"p{i}", "person", f"Person {i}")
        b.add_edge(f"p{i}", "profession", "prof:comedian" if i % 2 else "prof:director")
        b.add_node(f"f{i}", "feature film", f"Film {i}")
        b.add_edge(f"f{i}", "directed_by", f"p{i}")
        b.add_edge(f"f{i}", "country", "c:us")
    return b.build()


def test_inflections_and_phrase():
    assert singular("countries") == "country" and singular("films") == "film" and singular("class") == "class"
    assert "movie" in forms("movies")
    assert answer_phrase("which films directed by x starred y".split()) == ["films"]
    assert answer_phrase("an animated film scored by x".split()) == ["animated", "film"]


def test_type_heads_synonyms_classes_and_people():
    at = AnswerTypes(_kb(), min_links=10)
    assert at.guess("which films directed by x starred y".split()) == {"feature film": 1.0}
    assert at.guess("movies directed by x".split()) == {"feature film": 1.0}  # a synonym
    assert at.guess("a comedian born in chicago".split()) == {"person": 1.0}  # a class node
    # the phrase's head ("directors") outweighs the earlier "film"
    got = at.guess("film directors born in london".split())
    assert max(got, key=got.get) == "person"
    assert at.guess("who directed film 3".split()) == {"person": 1.0}
    assert at.guess("thinkers influenced by x".split()) == {"person": 1.0}  # an agent noun
    # a country many films point to is a class of films, but not past the participle
    assert at.guess("countries bordering united states".split()) == {"country": 1.0}
    assert at.guess("what is the capital of x".split()) == {}


def test_a_head_noun_for_people_outweighs_an_earlier_type_word():
    at = AnswerTypes(_kb(), min_links=10)
    # "film" names a type, but the phrase's head "alumni" / "members" says people
    got = at.guess("film alumni who went into politics".split())
    assert got == {"feature film": 0.2, "person": 0.8}
    assert max(at.guess("country members".split()).items(), key=lambda x: x[1])[0] == "person"
    # an agent ending alone does not override a type word ("film blender" is no person)
    assert at.guess("film blender by x".split()) == {"feature film": 1.0}
    assert at.guess("film students".split())["person"] == 0.8


def test_types_that_do_not_inform_are_never_guessed():
    """One type for nearly every node, or a name ending in a function word, restricts nothing."""
    from skbsearch.retrieve.graph.zero_shot import zero_shot_types

    b = SKBBuilder()
    for i in range(40):
        b.add_node(f"w{i}", "word", f"Word {i}")
    b.add_node("s1", "similar to", "Alike")
    b.add_node("s2", "part", "Piece")
    kb = b.build()
    at = AnswerTypes(kb, min_links=10)
    assert at.informative == {"part", "similar to"} - {"similar to"}
    assert at.guess("which words mean x".split()) == {}  # "word": 95 % of the nodes
    assert at.guess("what is similar to x".split()) == {}
    assert at.guess("which part of x".split()) == {"part": 1.0}
    # the untrained fallback: a function word never names a type, an uninformative type is not named
    got = zero_shot_types(kb, {"that", "to", "words"}, [], at.informative)
    assert set(got) == set(kb.type_names)  # nothing named: every type
