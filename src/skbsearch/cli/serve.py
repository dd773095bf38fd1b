"""``skb serve``: the HTTP service over a saved SKB."""

from __future__ import annotations

from pathlib import Path

import typer

from skbsearch.cli.output import handle_errors


def register(app: typer.Typer) -> None:
    """Add ``skb serve`` to ``app``."""

    @app.command("serve")
    @handle_errors
    def serve(
        skb_dir: Path = typer.Argument(..., help="SKB directory (indexes from 'skb index' under SKB_DIR/indexes)."),
        host: str = typer.Option("127.0.0.1", help="Address to bind."),
        port: int = typer.Option(8000, min=1, max=65535, help="Port (1-65535)."),
        max_body_bytes: int = typer.Option(1_000_000, help="Largest request body in bytes (413 above)."),
        max_batch: int = typer.Option(100, help="Most queries in one search request (413 above)."),
        max_query_chars: int = typer.Option(1_000, help="Longest query text (422 above)."),
        max_k: int = typer.Option(1_000, help="Largest k (422 above)."),
        max_results: int = typer.Option(10_000, help="Largest k x queries in one request (422 above)."),
        workers: int = typer.Option(0, help="Search threads (0: min(4, CPUs))."),
        max_pending: int = typer.Option(64, help="Searches running or queued at once (503 above)."),
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
    ) -> None:
        """Serve search, pipelines, node lookup, KB info and the web explorer (at /) over HTTP (FastAPI; extra \\[server])."""
        from skbsearch.errors import InputError, MissingDependencyError
        from skbsearch.server import create_app
        from skbsearch.server.limits import Limits
        from skbsearch.server.pipelines import parse_named

        try:
            import uvicorn
        except ImportError:
            raise MissingDependencyError("uvicorn", "server", "skb serve") from None
        options = {"max_body_bytes": max_body_bytes, "max_batch": max_batch,
                   "max_query_chars": max_query_chars, "max_k": max_k, "max_results": max_results,
                   "max_pending": max_pending}
        if workers:
            options["search_workers"] = workers
        try:
            limits = Limits(**options)
        except ValueError as e:
            raise InputError(f"{e} (see 'skb serve --help')") from None
        named = parse_named(pipeline)
        from skbsearch.server.admin import read_token

        app = create_app(skb_dir, limits, pipelines=named, allow_spec_files=allow_spec_files,
                         admin_token=read_token(admin_token_file))
        uvicorn.run(app, host=host, port=port, log_level="info")
