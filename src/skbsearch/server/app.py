"""The FastAPI application (see :mod:`skbsearch.server`)."""

# No `from __future__ import annotations`: FastAPI must resolve the local request model.

import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from skbsearch.core.deadline import Deadline
from skbsearch.core.errors import MissingDependencyError
from skbsearch.documents import DocumentRenderer
from skbsearch.server.admin import install_admin
from skbsearch.server.browse import node_page
from skbsearch.server.budget import cost_class
from skbsearch.server.errors import SnapshotChanged, UnknownNode, install_error_handlers
from skbsearch.server.hosts import LOCAL_HOSTS, AllowedHosts
from skbsearch.server.lanes import Busy, Lanes
from skbsearch.server.limits import BodySizeLimit, Limits, check_text
from skbsearch.server.pipelines import PipelinePolicy, PipelineRequest, iter_stages
from skbsearch.server.search import explain_node, get_pipeline, run_search, warm_pipelines
from skbsearch.server.snapshot import Snapshot, SnapshotHolder
from skbsearch.server.web import install_web
from skbsearch.stages import available_stages, describe

T = TypeVar("T")
#: Times a request is retried on a newer snapshot when the SKB is rebuilt under it.
SNAPSHOT_RETRIES = 3


def create_app(skb_dir: str | Path, limits: Limits | None = None, *,
               pipelines: Mapping[str, str] | None = None, allow_spec_files: bool = False,
               allowed_hosts: Iterable[str] = LOCAL_HOSTS,
               admin_token: str | None = None) -> Any:
    """A FastAPI app serving the SKB at ``skb_dir`` (its indexes under ``skb_dir/indexes``).

    Args:
        skb_dir: the SKB directory; rebuilding it in place while serving is safe (each
            request is answered from one build, see :mod:`skbsearch.server.snapshot`).
        limits: request limits and worker counts (default :class:`Limits`).
        pipelines: named pipelines ``{name: spec}`` offered besides the defaults; they may
            load files (models, run files), clients' own specs may not.
        allow_spec_files: let clients' specs name files, models and URLs too.
        allowed_hosts: host names a request's ``Host`` header may give (400 otherwise;
            ``"*"``: any), see :mod:`skbsearch.server.hosts`; default: the loopback names.
    """
    try:
        from fastapi import FastAPI, HTTPException, Query, Request
        from pydantic import BaseModel, Field
    except ImportError:
        raise MissingDependencyError("fastapi", "server", "The HTTP service") from None

    limits = limits or Limits()
    policy = PipelinePolicy(pipelines, allow_files=allow_spec_files,
                            max_stages=limits.max_pipeline_stages,
                            max_candidates=limits.max_candidates, max_k=limits.max_k)
    holder = SnapshotHolder(skb_dir, cache_bytes=limits.pipeline_cache_bytes,
                            warm=lambda snap: warm_pipelines(snap, policy))
    renderer = DocumentRenderer(add_rel=True, max_per_relation=10)
    lanes = Lanes(limits)

    @asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        yield
        lanes.shutdown()

    async def offload(fn: Callable[[], T], lane: str = "light", limit: Deadline | None = None,
                      request: Any = None) -> T:
        """Run ``fn`` on a worker lane, off the event loop, under the request's deadline
        (503 when the lane is full, 504 past the deadline); the work stops if the client
        of ``request`` goes away."""
        try:
            return await lanes.run(lane, fn, limit,
                                   request.receive if request is not None else None)
        except Busy:
            raise HTTPException(503, "server busy; retry later", headers={"Retry-After": "1"}) from None

    def on_snapshot(fn: Callable[[Snapshot], T]) -> T:
        """``fn`` on the newest snapshot; retried on a newer one if a rebuild lands meanwhile."""
        for attempt in range(SNAPSHOT_RETRIES):
            try:
                return fn(holder.get())
            except SnapshotChanged:
                if attempt == SNAPSHOT_RETRIES - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    async def served_snapshot() -> Snapshot:
        """The snapshot to answer from: at once if the directory still holds it (one stat),
        else the reload runs on the worker pool."""
        return holder.current if not holder.changed_on_disk() else await offload(holder.get, "normal")

    def refuse_early(preq: PipelineRequest | None = None, node_id: str | None = None,
                     n_queries: int = 1) -> str:
        """Refuse a bad pipeline or an unknown id on the event loop, without queueing;
        returns the lane (cost class) the request runs on.

        Parsing and checking a spec takes well under a millisecond (the pipeline is cached
        for the worker that runs it); only when the served snapshot is still current.
        """
        if holder.changed_on_disk():
            return "normal"
        snap = holder.current
        if node_id is not None and not snap.skb.has_node(node_id):
            raise UnknownNode(node_id)
        if preq is None:
            return "light"
        pipe = get_pipeline(snap, policy, preq)
        return cost_class(iter_stages(pipe), n_queries, max_k=limits.max_k)

    def refuse_text(**fields: Any) -> None:
        """400 naming the field when a text field is not valid text (a lone surrogate)."""
        refused = check_text(fields)
        if refused:
            raise HTTPException(*refused)

    class SearchRequest(BaseModel):
        query: str | None = None
        queries: list[str] | None = None
        k: int = 10
        pipeline: str | None = None
        retriever: str | None = None
        types: list[str] = []
        where: str | None = None
        evidence: int = Field(2, ge=0, le=10)

    class ExplainRequest(BaseModel):
        query: str
        id: str
        pipeline: str | None = None
        retriever: str | None = None
        types: list[str] = []
        where: str | None = None
        evidence: int = Field(5, ge=0, le=10)

    def pipeline_request(req: SearchRequest | ExplainRequest, k: int) -> PipelineRequest:
        types = tuple(t.strip() for t in req.types if t.strip())
        where = req.where.strip() if req.where and req.where.strip() else None
        pipe = req.pipeline.strip() if req.pipeline and req.pipeline.strip() else None
        return PipelineRequest(pipe, None if pipe else (req.retriever or "bm25"), types, where, k)

    app = FastAPI(title="skbsearch", version="0.1.0", lifespan=lifespan)
    app.add_middleware(BodySizeLimit, max_bytes=limits.max_body_bytes)
    app.add_middleware(AllowedHosts, hosts=allowed_hosts)  # outermost: runs first
    install_error_handlers(app)
    install_web(app)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        # Runs on the event loop: no locks, no worker threads, one stat() of meta.json.
        snap = holder.current
        return {"status": "ok", "snapshot": snap.identity, "generation": snap.generation,
                "nodes": snap.skb.num_nodes,
                "edges": snap.skb.num_edges, "stale": holder.changed_on_disk()}

    @app.get("/kb")
    async def kb_info() -> dict[str, Any]:
        snap = await served_snapshot()
        # The SKB's name, never the server's path to it.
        return {"name": holder.skb_dir.name, **snap.kb_info}

    stage_docs = [describe(n) for n in available_stages()]  # the registry is fixed once imported

    @app.get("/pipelines")
    async def list_pipelines() -> dict[str, Any]:
        snap = await served_snapshot()
        named = policy.pipelines(snap.skb.num_edges)
        return {"pipelines": [{"name": n, "spec": s} for n, s in named.items()],
                "default": next(iter(named)), "allow_spec_files": policy.allow_files,
                "stages": stage_docs, "snapshot": snap.identity}

    def node_info(snap: Snapshot, node_id: str, offset: int, limit: int,
                  relation: str | None) -> dict[str, Any]:
        skb = snap.skb
        if not skb.has_node(node_id):  # a dict lookup: ids never reach the file system
            raise UnknownNode(node_id)
        i = int(skb.index_of(node_id))
        n = skb.node(i)
        nbrs, groups = node_page(skb, i, offset=offset, limit=limit, relation=relation)
        return {"id": n.id, "type": n.type, "name": n.name, "fields": n.fields,
                "attributes": n.attributes, "document": renderer.render(skb, i),
                "neighbors": nbrs, "relations": groups, "snapshot": snap.identity}

    @app.get("/nodes/{node_id:path}")
    async def node(request: Request, node_id: str, offset: int = Query(0, ge=0, le=10_000_000),
                   limit: int = Query(50, ge=1), relation: str | None = None) -> dict[str, Any]:
        if limit > limits.max_page:
            raise HTTPException(422, f"limit must be between 1 and {limits.max_page}, got {limit}")
        refuse_text(id=node_id, relation=relation)
        lane = refuse_early(node_id=node_id)
        return await offload(lambda: on_snapshot(
            lambda snap: node_info(snap, node_id, offset, limit, relation)), lane, None, request)

    @app.post("/search")
    async def search(req: SearchRequest, request: Request) -> dict[str, Any]:
        limit = lanes.start()
        refuse_text(query=req.query, queries=req.queries, pipeline=req.pipeline,
                    retriever=req.retriever, types=req.types, where=req.where)
        texts = req.queries if req.queries is not None else ([req.query] if req.query else [])
        if not texts:
            raise HTTPException(422, "give 'query' or 'queries'")
        refused = limits.check_search(len(texts), max(map(len, texts)), req.k, req.where,
                                      len(req.types), req.pipeline or req.retriever)
        if refused:
            raise HTTPException(*refused)
        preq = pipeline_request(req, req.k)
        lane = refuse_early(preq, n_queries=len(texts))
        return await offload(lambda: on_snapshot(lambda snap: run_search(
            snap, policy, preq, texts, evidence=req.evidence,
            evidence_budget=limits.max_evidence_hits, batch=req.queries is not None)), lane, limit,
            request)

    @app.post("/explain")
    async def explain(req: ExplainRequest, request: Request) -> dict[str, Any]:
        limit = lanes.start()
        refuse_text(query=req.query, id=req.id, pipeline=req.pipeline, retriever=req.retriever,
                    types=req.types, where=req.where)
        if not req.query:
            raise HTTPException(422, "give 'query'")
        refused = limits.check_search(1, max(len(req.query), len(req.id)), 1, req.where,
                                      len(req.types), req.pipeline or req.retriever)
        if refused:
            raise HTTPException(*refused)
        preq = pipeline_request(req, limits.max_k)
        lane = refuse_early(preq, req.id)
        return await offload(lambda: on_snapshot(lambda snap: explain_node(
            snap, policy, preq, req.query, req.id, evidence=req.evidence)), lane, limit, request)

    install_admin(app, Path(skb_dir), admin_token, offload, holder.get)
    app.state.snapshots = holder
    app.state.limits = limits
    app.state.pipelines = policy
    app.state.lanes = lanes
    return app
