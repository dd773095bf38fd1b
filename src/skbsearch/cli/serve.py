"""``skb serve``: the HTTP service over a saved SKB."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from skbsearch.cli.output import device_options, handle_errors


def register(app: typer.Typer) -> None:
    """Add ``skb serve`` to ``app``."""

    @app.command("serve")
    @handle_errors
    @device_options
    def serve(
        skb_dir: Path = typer.Argument(..., help="SKB directory (indexes from 'skb index' under SKB_DIR/indexes)."),
        host: str = typer.Option("127.0.0.1", help="Address to bind."),
        port: int = typer.Option(8000, min=1, max=65535, help="Port (1-65535)."),
        max_body_bytes: int = typer.Option(1_000_000, help="Largest request body in bytes (413 above)."),
        max_batch: int = typer.Option(100, help="Most queries in one search request (413 above)."),
        max_query_chars: int = typer.Option(1_000, help="Longest query text (422 above)."),
        max_k: int = typer.Option(1_000, help="Largest k (422 above)."),
        max_results: int = typer.Option(10_000, help="Largest k x queries in one request (422 above)."),
        workers: int = typer.Option(0, help="Threads of the light and of the normal lane (0: min(4, CPUs))."),
        heavy_workers: int = typer.Option(0, help="Threads of the heavy lane: models, big sizes, "
                                          "indexes built in memory (0: half of --workers)."),
        max_pending: int = typer.Option(64, help="Requests running or queued at once in a lane (503 above)."),
        max_candidates: int = typer.Option(10_000, help="Cap of every size parameter of a client's "
                                           "spec (k, n_text, n_graph, top_k...), lowered to the SKB's "
                                           "node count (400 above)."),
        request_timeout: float = typer.Option(30.0, help="Seconds a request's work may take once "
                                              "it runs; then it stops (504)."),
        pipeline_cache_mb: int = typer.Option(256, help="Estimated memory of the built pipelines "
                                              "kept per SKB snapshot (MB)."),
        max_filter_cost: int = typer.Option(1_000_000_000, help="Estimated cost of a request's "
                                            "'where' filters above which it is refused (400); "
                                            "the unit is one numeric comparison of a row."),
        light_filter_cost: int = typer.Option(10_000_000, help="Estimated filter cost above which "
                                              "a request runs on the heavy lane."),
        allowed_hosts: list[str] = typer.Option(
            [], "--allowed-hosts", help="Host names clients may send in the Host header, "
            "repeatable ('*': any; default: the --host address, plus localhost, 127.0.0.1 and ::1 "
            "when it is a loopback address). Others get 400 (DNS rebinding defence)."),
        pipeline: list[str] = typer.Option(
            [], "--pipeline", help="Named pipeline NAME=SPEC, repeatable (e.g. "
            "--pipeline fused='(bm25 + graph) % 20'); offered besides bm25 and graph, and may load "
            "files (models, run files)."),
        admin_token_file: Path = typer.Option(
            None, "--admin-token-file", help="Enable POST /admin/update for requests with this "
            "token (file of one line, >= 16 characters; or $SKB_ADMIN_TOKEN). Off by default."),
        allow_spec_files: bool = typer.Option(
            False, "--allow-spec-files", help="Let clients' own specs name files, models and "
            "URLs (default: only named pipelines may)."),
        api_docs: bool = typer.Option(
            False, "--api-docs", help="Serve the interactive API docs at /docs and /redoc "
            "(their scripts load from a CDN, under a Content-Security-Policy). Off by default."),
    ) -> None:
        """Serve search, pipelines, node lookup, KB info and the web explorer (at /) over HTTP (FastAPI; extra \\[server])."""
        from skbsearch.core.errors import MissingDependencyError
        from skbsearch.server import create_app
        from skbsearch.server.hosts import default_hosts
        from skbsearch.server.pipelines import parse_named

        try:
            import uvicorn
        except ImportError:
            raise MissingDependencyError("uvicorn", "server", "skb serve") from None
        limits = _limits(workers=workers, heavy_workers=heavy_workers, max_body_bytes=max_body_bytes,
                         max_batch=max_batch, max_query_chars=max_query_chars, max_k=max_k,
                         max_results=max_results, max_pending=max_pending,
                         max_candidates=max_candidates, request_timeout=request_timeout,
                         pipeline_cache_bytes=pipeline_cache_mb * 2**20,
                         max_filter_cost=max_filter_cost, light_filter_cost=light_filter_cost)
        named = parse_named(pipeline)
        from skbsearch.server.admin import read_token

        hosts = allowed_hosts or default_hosts(host)
        app = create_app(skb_dir, limits, pipelines=named, allow_spec_files=allow_spec_files,
                         allowed_hosts=hosts, admin_token=read_token(admin_token_file),
                         api_docs=api_docs)
        from skbsearch.server.holder import freeze_loaded_heap

        freeze_loaded_heap()  # no full garbage collection stalls requests over the loaded SKB
        uvicorn.run(app, host=host, port=port, log_level="info")


def _limits(*, workers: int, heavy_workers: int, **options: Any) -> Any:
    """The server's :class:`~skbsearch.server.limits.Limits` from ``skb serve``'s options
    (``--workers`` sets the light and normal lanes, and half as many heavy ones unless
    ``--heavy-workers`` says); a bad value is an :class:`InputError`."""
    from skbsearch.core.errors import InputError
    from skbsearch.server.limits import Limits

    if workers:
        options["search_workers"] = workers
        options["heavy_workers"] = max(1, workers // 2)
    if heavy_workers:
        options["heavy_workers"] = heavy_workers
    try:
        return Limits(**options)
    except ValueError as e:
        raise InputError(f"{e} (see 'skb serve --help')") from None
