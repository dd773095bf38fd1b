"""The FastAPI application (see :mod:`skbsearch.server`): one ``register_*`` function per
group of routes, over the state they share (:class:`~skbsearch.server.context.ServerContext`)."""

# No `from __future__ import annotations`: FastAPI must resolve the local request models.

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from skbsearch.core.errors import MissingDependencyError
from skbsearch.server.admin import install_admin
from skbsearch.server.browse import node_page
from skbsearch.server.context import ServerContext
from skbsearch.server.errors import UnknownNode, install_error_handlers
from skbsearch.server.headers import NoSniff, install_api_docs
from skbsearch.server.hosts import LOCAL_HOSTS, AllowedHosts
from skbsearch.server.limits import BodySizeLimit, Limits
from skbsearch.server.pipelines import PipelineRequest
from skbsearch.server.search import explain_node, run_search
from skbsearch.server.snapshot import Snapshot
from skbsearch.server.web import install_web
from skbsearch.stages import available_stages, describe


def create_app(skb_dir: str | Path, limits: Limits | None = None, *,
               pipelines: Mapping[str, str] | None = None, allow_spec_files: bool = False,
               allowed_hosts: Iterable[str] = LOCAL_HOSTS,
               admin_token: str | None = None, api_docs: bool = False) -> Any:
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
        admin_token: enables ``POST /admin/update`` for requests carrying it
            (:mod:`skbsearch.server.admin`); ``None``: no such endpoint.
        api_docs: serve the interactive API docs (``/docs``, ``/redoc``; their scripts come
            from a CDN, under a CSP, see :mod:`skbsearch.server.headers`); off by default.
    """
    try:
        from fastapi import FastAPI
    except ImportError:
        raise MissingDependencyError("fastapi", "server", "The HTTP service") from None

    limits = limits or Limits()
    ctx = ServerContext.create(skb_dir, limits, pipelines, allow_spec_files)
    app = FastAPI(title="skbsearch", version="0.1.0", lifespan=ctx.lifespan, docs_url=None,
                  redoc_url=None)
    app.add_middleware(BodySizeLimit, max_bytes=limits.max_body_bytes)
    app.add_middleware(AllowedHosts, hosts=allowed_hosts)  # runs first
    app.add_middleware(NoSniff)  # outermost: on every answer, refusals included
    install_error_handlers(app)
    install_web(app)
    if api_docs:
        install_api_docs(app)
    register_info_routes(app, ctx)
    register_node_routes(app, ctx)
    register_search_routes(app, ctx)
    install_admin(app, Path(skb_dir), admin_token, timeout=limits.request_timeout,
                  reload=lambda gen: ctx.holder.refresh(min_generation=gen),
                  served=lambda: ctx.holder.current.skb,
                  max_pending=limits.max_pending)
    app.state.snapshots = ctx.holder
    app.state.limits = limits
    app.state.pipelines = ctx.policy
    app.state.lanes = ctx.lanes
    return app


def register_info_routes(app: Any, ctx: ServerContext) -> None:
    """``GET /health``, ``GET /kb`` and ``GET /pipelines``."""
    holder, policy = ctx.holder, ctx.policy

    @app.get("/health")
    async def health() -> dict[str, Any]:
        # Runs on the event loop: no locks, no worker threads, one stat() of meta.json.
        snap = holder.current
        return {"status": "ok", "snapshot": snap.identity, "generation": snap.generation,
                "nodes": snap.skb.num_nodes,
                "edges": snap.skb.num_edges, "stale": holder.changed_on_disk()}

    @app.get("/kb")
    async def kb_info() -> dict[str, Any]:
        snap = await ctx.served_snapshot()
        # The SKB's name, never the server's path to it.
        return {"name": holder.skb_dir.name, **snap.kb_info}

    stage_docs = [describe(n) for n in available_stages()]  # the registry is fixed once imported

    @app.get("/pipelines")
    async def list_pipelines() -> dict[str, Any]:
        snap = await ctx.served_snapshot()
        named = policy.pipelines(snap.skb.num_edges)
        return {"pipelines": [{"name": n, "spec": s} for n, s in named.items()],
                "default": next(iter(named)), "allow_spec_files": policy.allow_files,
                "stages": stage_docs, "snapshot": snap.identity}


def node_info(ctx: ServerContext, snap: Snapshot, node_id: str, offset: int, limit: int,
              relation: str | None) -> dict[str, Any]:
    """The body of ``GET /nodes/{id}``: the node, its document and one page of neighbours."""
    skb = snap.skb
    if not skb.has_node(node_id):  # a dict lookup: ids never reach the file system
        raise UnknownNode(node_id)
    i = int(skb.index_of(node_id))
    n = skb.node(i)
    nbrs, groups = node_page(skb, i, offset=offset, limit=limit, relation=relation)
    return {"id": n.id, "type": n.type, "name": n.name, "fields": n.fields,
            "attributes": n.attributes, "document": ctx.renderer.render(skb, i),
            "neighbors": nbrs, "relations": groups, "snapshot": snap.identity}


def register_node_routes(app: Any, ctx: ServerContext) -> None:
    """``GET /nodes/{id}``: a node page (``offset``/``limit``/``relation`` page its neighbours)."""
    from fastapi import HTTPException, Query, Request

    max_page = ctx.limits.max_page

    @app.get("/nodes/{node_id:path}")
    async def node(request: Request, node_id: str, offset: int = Query(0, ge=0, le=10_000_000),
                   limit: int = Query(50, ge=1), relation: str | None = None) -> dict[str, Any]:
        if limit > max_page:
            raise HTTPException(422, f"limit must be between 1 and {max_page}, got {limit}")
        ctx.refuse_text(id=node_id, relation=relation)
        lane = ctx.refuse_early(node_id=node_id)
        return await ctx.offload(lambda: ctx.on_snapshot(
            lambda snap: node_info(ctx, snap, node_id, offset, limit, relation)), lane, None, request)


def request_models() -> tuple[type, type]:
    """The pydantic bodies of ``POST /search`` and ``POST /explain``."""
    from pydantic import BaseModel, Field

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

    return SearchRequest, ExplainRequest


def pipeline_request(req: Any, k: int) -> PipelineRequest:
    """The pipeline a search or explain body asks for (its spec, or a retriever: bm25)."""
    types = tuple(t.strip() for t in req.types if t.strip())
    where = req.where.strip() if req.where and req.where.strip() else None
    pipe = req.pipeline.strip() if req.pipeline and req.pipeline.strip() else None
    return PipelineRequest(pipe, None if pipe else (req.retriever or "bm25"), types, where, k)


def register_search_routes(app: Any, ctx: ServerContext) -> None:
    """``POST /search`` (one query or a batch) and ``POST /explain`` (why a node ranks)."""
    from fastapi import HTTPException, Request

    SearchRequest, ExplainRequest = request_models()
    limits, policy = ctx.limits, ctx.policy

    @app.post("/search")
    async def search(req: SearchRequest, request: Request) -> dict[str, Any]:
        limit = ctx.lanes.start()
        ctx.refuse_text(query=req.query, queries=req.queries, pipeline=req.pipeline,
                        retriever=req.retriever, types=req.types, where=req.where)
        texts = req.queries if req.queries is not None else ([req.query] if req.query else [])
        if not texts:
            raise HTTPException(422, "give 'query' or 'queries'")
        ctx.refuse_request(len(texts), max(map(len, texts)), req.k, req.where, len(req.types),
                           req.pipeline or req.retriever)
        preq = pipeline_request(req, req.k)
        lane = ctx.refuse_early(preq, n_queries=len(texts))
        return await ctx.offload(lambda: ctx.on_snapshot(lambda snap: run_search(
            snap, policy, preq, texts, evidence=req.evidence,
            evidence_budget=limits.max_evidence_hits, batch=req.queries is not None)), lane, limit,
            request)

    @app.post("/explain")
    async def explain(req: ExplainRequest, request: Request) -> dict[str, Any]:
        limit = ctx.lanes.start()
        ctx.refuse_text(query=req.query, id=req.id, pipeline=req.pipeline,
                        retriever=req.retriever, types=req.types, where=req.where)
        if not req.query:
            raise HTTPException(422, "give 'query'")
        ctx.refuse_request(1, max(len(req.query), len(req.id)), 1, req.where, len(req.types),
                           req.pipeline or req.retriever)
        preq = pipeline_request(req, limits.max_k)
        lane = ctx.refuse_early(preq, req.id)
        return await ctx.offload(lambda: ctx.on_snapshot(lambda snap: explain_node(
            snap, policy, preq, req.query, req.id, evidence=req.evidence)), lane, limit, request)
