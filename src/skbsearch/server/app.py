"""The FastAPI application (see :mod:`skbsearch.server`)."""

# No `from __future__ import annotations`: FastAPI must resolve the local request model.

import threading
from pathlib import Path
from typing import Any

from skbsearch.errors import MissingDependencyError, SkbError
from skbsearch.types import Query


def create_app(skb_dir: str | Path) -> Any:
    """A FastAPI app serving the SKB at ``skb_dir`` (its indexes under ``skb_dir/indexes``)."""
    try:
        from fastapi import FastAPI, HTTPException
        from pydantic import BaseModel, Field
    except ImportError:
        raise MissingDependencyError("fastapi", "server", "The HTTP service") from None

    from skbsearch.documents import DocumentRenderer
    from skbsearch.index import get_kind
    from skbsearch.kb.schema import INVERSE_SUFFIX
    from skbsearch.kb.store import SKB
    from skbsearch.retrieve.filters import NodeFilter

    skb_dir = Path(skb_dir)
    skb = SKB.load(skb_dir)
    renderer = DocumentRenderer(add_rel=True, max_per_relation=10)
    indexes: dict[str, Any] = {}
    lock = threading.Lock()

    def index_for(kind: str) -> Any:
        with lock:
            if kind not in indexes:
                spec = get_kind(kind)
                path = skb_dir / "indexes" / spec.index_dir_name
                if not path.is_dir():
                    raise HTTPException(404, f"no {kind} index at {path}; build it with 'skb index {skb_dir} --kind {kind}'")
                indexes[kind] = (spec, spec.load(path))
            return indexes[kind]

    class SearchRequest(BaseModel):
        query: str | None = None
        queries: list[str] | None = None
        k: int = Field(10, ge=1, le=1000)
        retriever: str = "bm25"
        types: list[str] = []
        where: str | None = None

    app = FastAPI(title="skbsearch", version="0.1.0")

    @app.get("/health")
    def health() -> dict[str, Any]:
        return {"status": "ok", "nodes": skb.num_nodes, "edges": skb.num_edges}

    @app.get("/kb")
    def kb_info() -> dict[str, Any]:
        counts = skb.sql("SELECT type, count(*) AS n FROM nodes GROUP BY type ORDER BY type").to_pylist()
        return {"path": str(skb_dir), "node_types": {r["type"]: r["n"] for r in counts},
                "relations": skb.schema.relations, "text_fields": skb.schema.text_fields,
                "attributes": skb.schema.attributes}

    @app.get("/nodes/{node_id:path}")
    def node(node_id: str) -> dict[str, Any]:
        if not skb.has_node(node_id):
            raise HTTPException(404, f"unknown node id {node_id!r}")
        i = int(skb.index_of(node_id))
        n = skb.node(i)
        nbrs = {}
        for base in skb.schema.relations:
            for rel in (base, base + INVERSE_SUFFIX):
                offsets, ids = skb.graph.neighbors([i], [rel], "out")
                if len(ids):
                    nbrs[rel] = skb.id_of(ids[:50])
        return {"id": n.id, "type": n.type, "name": n.name, "fields": n.fields, "attributes": n.attributes,
                "document": renderer.render(skb, i), "neighbors": nbrs}

    @app.post("/search")
    def search(req: SearchRequest) -> dict[str, Any]:
        texts = req.queries if req.queries is not None else ([req.query] if req.query else [])
        if not texts:
            raise HTTPException(422, "give 'query' or 'queries'")
        try:
            spec, index = index_for(req.retriever)
            stage = spec.retriever(index, k=req.k, filter=NodeFilter(tuple(req.types), req.where), skb=skb)
            run = stage([Query(f"q{j}", t) for j, t in enumerate(texts)])
        except SkbError as e:
            raise HTTPException(400, str(e)) from None
        names = skb.column("name")
        results = []
        for j, t in enumerate(texts):
            hits = []
            for doc, score in run.ranked(f"q{j}")[: req.k]:
                known = skb.has_node(doc)
                hits.append({"id": doc, "score": score,
                             "name": names[int(skb.index_of(doc))] if known else None})
            results.append({"query": t, "hits": hits})
        return {"retriever": req.retriever, "results": results if req.queries is not None else results[0]}

    return app
