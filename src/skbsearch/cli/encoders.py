"""`skb encoders`: the text encoders (list them; build the static one ahead of first use)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from skbsearch.cli.output import console, err_console, handle_errors, print_json, print_table

encoders_app = typer.Typer(help="Text encoders for dense indexes: list them, build the static one.",
                           no_args_is_help=True)


@encoders_app.command("list")
@handle_errors
def list_cmd(
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON for machines.")] = False,
) -> None:
    """The named encoders and, for 'static', whether it is built and where."""
    from skbsearch.encoders import available_encoders
    from skbsearch.encoders.static import MARKER, default_static_dir

    static_dir = default_static_dir()
    about = {"minilm": "packaged all-MiniLM-L6-v2 (384-d; extra [dense])",
             "static": "model2vec, distilled from it (256-d; CPU, no torch, hundreds of times "
                       "faster, lower quality: docs/guides/dense-cpu.md; extra [static]); "
                       + ("built" if (static_dir / MARKER).is_file() else "not built yet")}
    rows = [{"encoder": n, "what": about.get(n, ""),
             "path": str(static_dir) if n == "static" else ""} for n in available_encoders()]
    if json_out:
        print_json({"encoders": rows})
    else:
        print_table(rows, title="encoders (or a sentence-transformers / model2vec directory, "
                                "or a hub name when online)")


@encoders_app.command("build")
@handle_errors
def build_cmd(
    name: Annotated[str, typer.Argument(help="The encoder to build: static.")],
    out: Annotated[Path | None, typer.Option(
        help="Directory (default: $SKB_CACHE_DIR/encoders/static-minilm-pca256, where "
             "--encoder static looks; elsewhere, pass the directory as --encoder).")] = None,
    pca_dims: Annotated[int, typer.Option("--pca-dims", min=2, max=384, help=(
        "Dimensions kept by PCA (MiniLM has 384).")) ] = 256,
    force: Annotated[bool, typer.Option("--force", help="Build again over an existing one.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON for machines.")] = False,
) -> None:
    """Distil the packaged MiniLM into a static (model2vec) encoder, offline (~20 s to 2 min)."""
    from skbsearch.core.errors import InputError
    from skbsearch.encoders.static import PCA_DIMS, build_static_model, default_static_dir

    if name != "static":
        raise InputError(f"only the 'static' encoder is built by this command, not {name!r}",
                         field="name")
    if out is None and pca_dims != PCA_DIMS:
        raise InputError(f"--encoder static uses {PCA_DIMS} dimensions; with --pca-dims "
                         f"{pca_dims}, give --out DIR and pass DIR as --encoder", field="--pca-dims")
    target = out or default_static_dir()
    if target.exists() and not force:
        raise FileExistsError(f"{target} exists; pass --force to build it again")
    if not json_out:
        err_console.print("distilling the packaged all-MiniLM-L6-v2 (offline; ~20 s to 2 min) ...")
    t0 = time.perf_counter()
    path = build_static_model(target, pca_dims=pca_dims, force=force)
    seconds = round(time.perf_counter() - t0, 1)
    if json_out:
        print_json({"encoder": name, "path": str(path), "pca_dims": pca_dims, "seconds": seconds})
    else:
        console.print(f"[green]built[/] the static encoder at {escape(str(path))} in {seconds} s")


def register(app: typer.Typer) -> None:
    """Add the ``encoders`` command group to ``app``."""
    app.add_typer(encoders_app, name="encoders")
