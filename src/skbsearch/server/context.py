"""What the service's routes share: the snapshot holder, the pipeline policy, the limits,
the worker lanes, and the checks run on the event loop before a request queues."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from skbsearch.core.deadline import Deadline, current_deadline
from skbsearch.documents import DocumentRenderer
from skbsearch.server.budget import cost_class, filter_cost, filter_lane
from skbsearch.server.errors import SnapshotChanged, UnknownNode
from skbsearch.server.holder import SnapshotHolder
from skbsearch.server.lanes import Busy, Lanes
from skbsearch.server.limits import Limits, check_text
from skbsearch.server.pipelines import PipelinePolicy, PipelineRequest, iter_stages
from skbsearch.server.search import get_pipeline, warm_pipelines
from skbsearch.server.snapshot import Snapshot

T = TypeVar("T")
#: Times a request is retried on a newer snapshot when the SKB is rebuilt under it.
SNAPSHOT_RETRIES = 3
#: Most seconds a request whose snapshot's files a rebuild removed waits for the new one.
REBUILD_WAIT = 5.0


def _http_error(status: int, detail: str, headers: dict[str, str] | None = None) -> Exception:
    from fastapi import HTTPException  # the [server] extra; create_app has checked it

    return HTTPException(status, detail, headers=headers)


@dataclass
class ServerContext:
    """The state every route of one app uses (one per :func:`create_app` call)."""

    holder: SnapshotHolder
    policy: PipelinePolicy
    limits: Limits
    lanes: Lanes
    renderer: DocumentRenderer = field(
        default_factory=lambda: DocumentRenderer(add_rel=True, max_per_relation=10))

    @classmethod
    def create(cls, skb_dir: str | Path, limits: Limits, pipelines: Mapping[str, str] | None,
               allow_spec_files: bool) -> ServerContext:
        """The context of a service over ``skb_dir`` (see :func:`create_app` for the arguments)."""
        policy = PipelinePolicy(pipelines, allow_files=allow_spec_files,
                                max_stages=limits.max_pipeline_stages,
                                max_candidates=limits.max_candidates, max_k=limits.max_k)
        holder = SnapshotHolder(skb_dir, cache_bytes=limits.pipeline_cache_bytes,
                                warm=lambda snap: warm_pipelines(snap, policy))
        return cls(holder, policy, limits, Lanes(limits))

    @asynccontextmanager
    async def lifespan(self, _: Any) -> AsyncIterator[None]:
        """The app's lifespan: the worker lanes stop when it ends."""
        yield
        self.lanes.shutdown()

    async def offload(self, fn: Callable[[], T], lane: str = "light", limit: Deadline | None = None,
                      request: Any = None) -> T:
        """Run ``fn`` on a worker lane, off the event loop, under the request's deadline
        (503 when the lane is full, 504 past the deadline); the work stops if the client
        of ``request`` goes away."""
        try:
            return await self.lanes.run(lane, fn, limit,
                                        request.receive if request is not None else None)
        except Busy:
            raise _http_error(503, "server busy; retry later", {"Retry-After": "1"}) from None

    def on_snapshot(self, fn: Callable[[Snapshot], T]) -> T:
        """``fn`` on the served snapshot; when a rebuild removed the files it still needed,
        retried on the new one once the background loader has it (within the deadline)."""
        for attempt in range(SNAPSHOT_RETRIES):
            try:
                return fn(self.holder.get())
            except SnapshotChanged:
                if attempt == SNAPSHOT_RETRIES - 1:
                    raise
                d = current_deadline()
                wait = min(REBUILD_WAIT, max(0.0, d.remaining())) if d is not None else REBUILD_WAIT
                try:
                    self.holder.refresh(timeout=wait)
                except SnapshotChanged:
                    time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    async def served_snapshot(self) -> Snapshot:
        """The snapshot to answer from, at once (a newer one on disk loads in the background)."""
        return self.holder.get()

    def refuse_early(self, preq: PipelineRequest | None = None, node_id: str | None = None,
                     n_queries: int = 1) -> str:
        """Refuse a bad pipeline, a filter over its budget or an unknown id on the event
        loop, without queueing; returns the lane (cost class) the request runs on.

        Parsing and checking a spec and estimating its filters' cost take well under a
        millisecond (the pipeline is cached for the worker that runs it). Requests are
        answered from the served snapshot (a newer one loads in the background), so it is
        the one checked.
        """
        snap = self.holder.current
        if node_id is not None and not snap.skb.has_node(node_id):
            raise UnknownNode(node_id)
        if preq is None:
            return "light"
        pipe = get_pipeline(snap, self.policy, preq)
        stages = list(iter_stages(pipe))
        lane = cost_class(stages, n_queries, max_k=self.limits.max_k)
        cost = filter_cost(stages, snap.skb.nodes, preq.where)
        return filter_lane(lane, cost, light_cost=self.limits.light_filter_cost,
                           max_cost=self.limits.max_filter_cost)

    def refuse_text(self, **fields: Any) -> None:
        """400 naming the field when a text field is not valid text (a lone surrogate)."""
        refused = check_text(fields)
        if refused:
            raise _http_error(*refused)

    def refuse_request(self, n_queries: int, longest: int, k: int, where: str | None,
                       n_types: int, spec: str | None) -> None:
        """The status and reason of :meth:`Limits.check_search` as an HTTP error, if any."""
        refused = self.limits.check_search(n_queries, longest, k, where, n_types, spec)
        if refused:
            raise _http_error(*refused)
