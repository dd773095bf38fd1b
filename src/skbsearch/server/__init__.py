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
  query length, ``k``, ``k`` x batch); searches run on a bounded worker pool (503 when
  full), so ``/health`` answers at once from the event loop.
- Every answer comes from one build of the SKB: rebuilding ``SKB_DIR`` in place while
  serving swaps in a new snapshot (:mod:`skbsearch.server.snapshot`); ``/health``,
  ``/kb`` and ``/search`` name the snapshot (``"snapshot"``) they answer from.
"""

from skbsearch.server.app import create_app
from skbsearch.server.limits import Limits

__all__ = ["Limits", "create_app"]
