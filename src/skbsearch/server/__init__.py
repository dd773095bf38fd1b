"""HTTP service over a saved SKB and its indexes (FastAPI; extra ``[server]``).

    skb serve SKB_DIR [--host 127.0.0.1 --port 8000]

Endpoints: ``GET /health``, ``GET /kb`` (counts), ``GET /nodes/{id}`` (node, document,
neighbours), ``POST /search`` (``{"query", "k", "retriever", "types", "where"}`` or
``{"queries": [...]}`` for a batch). Indexes are the ones ``skb index`` wrote under
``SKB_DIR/indexes/``; each is loaded once, on first use.

- ``where`` is the allow-listed predicate language of :mod:`skbsearch.kb.predicate`.
  Clients see our own error messages only; engine errors and crashes are logged, and the
  client gets a generic 400/500 (:mod:`skbsearch.server.errors`).
- Requests are bounded (:class:`skbsearch.server.limits.Limits`: body size, batch size,
  query length, ``k``, ``k`` x batch, every size parameter of a client's spec
  (:mod:`~skbsearch.server.budget`), the ``Host`` header (:mod:`~skbsearch.server.hosts`),
  valid text); searches run on bounded worker lanes by cost class under a deadline
  (:mod:`~skbsearch.server.lanes`: 503 when a lane is full, 504 past the deadline), so
  ``/health`` answers at once from the event loop and cheap searches never queue behind
  expensive ones. See ``docs/serving.md``.
- Every answer comes from one build of the SKB: rebuilding ``SKB_DIR`` in place while
  serving swaps in a new snapshot (:mod:`skbsearch.server.snapshot`); ``/health``,
  ``/kb`` and ``/search`` name the snapshot (``"snapshot"``) they answer from.
"""

from skbsearch.server.app import create_app
from skbsearch.server.limits import Limits

__all__ = ["Limits", "create_app"]
