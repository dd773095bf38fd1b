"""`skb synth impliret`: generate a SYNTHETIC IMPLIRET-style pool (one category x style)."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from skbsearch.cli.arguments import output_dir_option
from skbsearch.cli.output import console, err_console, handle_errors, print_json, print_table


def register_impliret(synth: typer.Typer) -> None:
    """Add ``skb synth impliret`` to the ``synth`` group."""

    @synth.command("impliret")
    @handle_errors
    def impliret(
        out: Path = typer.Argument(..., help="Output folder; writes OUT/<category>_<style>speaker.jsonl "
                                   "(+ .meta.json). Other pools in OUT are kept.", callback=output_dir_option),
        category: str = typer.Option(..., "--category", help="arithmetic, temporal or wknow."),
        style: str = typer.Option(..., "--style", help="uni (10-utterance chats) or multi (forum posts)."),
        sets: int = typer.Option(50, "--sets", min=1, help="Tuple sets N (paper: 50)."),
        tuples: int = typer.Option(30, "--tuples", min=1, help="Tuples per set M (paper: 30)."),
        seed: int = typer.Option(0, "--seed", help="Random seed (same seed, same pool; byte-identical without --llm)."),
        llm: str | None = typer.Option(None, "--llm", help="Write documents with an LLM (Appendix A.4 prompts): "
                                       "smollm2, a .gguf path or an http(s):// OpenAI-compatible URL."),
        llm_model: str = typer.Option("default", "--llm-model", help="Model name sent to an HTTP server."),
        llm_max_tokens: int = typer.Option(700, "--llm-max-tokens", min=16, help="Generation budget per LLM document."),
        lexicons: Path | None = typer.Option(None, "--lexicons", help="Folder whose lexicon files replace the "
                                             "packaged ones (names.jsonl, A_Uni_Base_JSON.json, ...)."),
        gazetteer: Path | None = typer.Option(None, "--gazetteer", help="Wikidata landmark JSONL (needed for wknow)."),
        verify: str = typer.Option("enrich", "--verify", help="enrich (our enrichers), llm, both or none."),
        retries: int = typer.Option(3, "--retries", min=0, help="Extra draws per document that fails verification."),
        keep_unverified: bool = typer.Option(False, "--keep-unverified", help="Keep documents no draw could verify."),
        force: bool = typer.Option(False, "--force", help="Replace the pool file if it exists."),
        json_out: bool = typer.Option(False, "--json", help="Print the report as JSON."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or table."),
    ) -> None:
        """Generate a SYNTHETIC IMPLIRET-style pool: tuple sets (Appendix A), bound entities,
        documents (LLM or templates), verified; readable by 'skb bench impliret --data OUT'."""
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        from skbsearch.core.errors import InputError
        from skbsearch.synth.impliret import generate_impliret, pool_name, write_pool

        path = out / f"{pool_name(category, style)}.jsonl"
        if path.exists() and not force:
            raise InputError(f"{path} exists; pass --force to replace it", field="out")
        client = None
        if llm is not None:
            from skbsearch.core.paths import cache_root
            from skbsearch.llm import ResponseCache, get_client

            client = get_client(llm, model=llm_model, cache=ResponseCache(cache_root() / "llm" / "responses.sqlite"))
        start = time.perf_counter()
        with Progress(TextColumn("generating {task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err_console, transient=True,
                      disable=quiet or json_out) as bar:
            task = bar.add_task(pool_name(category, style), total=sets * tuples)
            pool = generate_impliret(
                category, style, sets=sets, tuples=tuples, seed=seed, lexicons=lexicons, gazetteer=gazetteer,
                llm=client, llm_max_tokens=llm_max_tokens, verify=verify, retries=retries, keep_unverified=keep_unverified,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
            )
        written = write_pool(pool, out, force=force)
        info = {**pool.report, "path": str(written), "seconds": round(time.perf_counter() - start, 2)}
        if json_out:
            print_json(info)
            return
        if quiet:
            return
        keys = ("documents", "requested", "by_template", "by_llm", "llm_attempts", "llm_format_failures",
                "template_fallbacks", "verification_failures", "dropped")
        rows = [{"what": k, "count": info[k]} for k in keys if k in info]
        rows += [{"what": f"failed: {r}", "count": n} for r, n in info["failure_reasons"].items()]
        print_table(rows, title=f"SYNTHETIC IMPLIRET pool -> {written} ({info['seconds']:.1f} s)")
        console.print(f"evaluate with: skb bench impliret --data {out}", highlight=False, markup=False)
