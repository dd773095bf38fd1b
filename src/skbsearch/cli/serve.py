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
        port: int = typer.Option(8000, help="Port."),
    ) -> None:
        """Serve search, node lookup and KB info over HTTP (FastAPI; extra [server])."""
        from skbsearch.errors import MissingDependencyError
        from skbsearch.server import create_app

        try:
            import uvicorn
        except ImportError:
            raise MissingDependencyError("uvicorn", "server", "skb serve") from None
        uvicorn.run(create_app(skb_dir), host=host, port=port, log_level="info")
