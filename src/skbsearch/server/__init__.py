"""HTTP service over a saved SKB and its indexes (FastAPI; extra ``[server]``).

    skb serve SKB_DIR [--host 127.0.0.1 --port 8000]

Endpoints: ``GET /health``, ``GET /kb`` (counts), ``GET /nodes/{id}`` (node, document,
neighbours), ``POST /search`` (``{"query", "k", "retriever", "types", "where"}`` or
``{"queries": [...]}`` for a batch). Indexes are the ones ``skb index`` wrote under
``SKB_DIR/indexes/``; each is loaded once, on first use.
"""

from skbsearch.server.app import create_app

__all__ = ["create_app"]
