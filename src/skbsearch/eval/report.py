"""Reports of evaluation results ``{system: {metric: value}}``: rich table and bar chart;
the shared console and :func:`print_table` (rows of dicts) that the CLI prints with.

matplotlib (the ``[plot]`` extra) is imported only when a chart is drawn, with the
non-interactive Agg backend.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from skbsearch.core.errors import InputError, MissingDependencyError
from skbsearch.core.outfile import output_file

Results = Mapping[str, Mapping[str, float]]


#: The console that reports and the CLI print on (``skbsearch.cli.output`` re-exports it).
console = Console()


def _literal(value: Any) -> Text:
    """``value`` as literal rich text: brackets in data are shown, never parsed as markup."""
    return Text(str(value))


def _metrics_of(results: Results, metrics: Sequence[str] | None) -> list[str]:
    if metrics is not None:
        return list(metrics)
    seen: dict[str, None] = {}
    for per_system in results.values():
        seen.update(dict.fromkeys(per_system))
    return list(seen)


def results_table(
    results: Results,
    metrics: Sequence[str] | None = None,
    title: str | None = None,
    digits: int = 4,
) -> Table:
    """A rich table, systems × metrics; the best value of each metric in bold."""
    cols = _metrics_of(results, metrics)
    best = {m: max((r[m] for r in results.values() if m in r), default=None) for m in cols}
    # System names and the title come from files (run tags, paths): literal text, not markup.
    table = Table(title=None if title is None else Text(title))
    table.add_column("system", overflow="fold")
    for m in cols:
        table.add_column(m, justify="right")
    for name, r in results.items():
        cells = []
        for m in cols:
            if m not in r:
                cells.append("")
                continue
            text = f"{r[m]:.{digits}f}"
            bold = len(results) > 1 and r[m] == best[m]
            cells.append(f"[bold]{text}[/bold]" if bold else text)
        table.add_row(Text(name), *cells)
    return table


def plot_format(path: str | Path, field: str | None = None) -> str:
    """The image format a plot written to ``path`` gets, from its suffix (none: ``png``).

    Raises:
        InputError: a suffix matplotlib cannot write (the message lists those it can).
        MissingDependencyError: matplotlib is not installed.
    """
    try:
        import matplotlib  # noqa: F401 (first: the package itself may be missing or blocked)
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError:
        raise MissingDependencyError("matplotlib", "plot", "Plotting results") from None
    suffix = Path(path).suffix.lower().lstrip(".")
    supported = FigureCanvasAgg.get_supported_filetypes()
    if not suffix:
        return "png"
    if suffix not in supported:
        raise InputError(f"cannot write a plot as '.{suffix}'; name a file ending in one of "
                         f"{', '.join('.' + f for f in sorted(supported))} (e.g. plot.png)",
                         file=path, field=field)
    return suffix


def plot_results(
    results: Results,
    out: str | Path,
    metrics: Sequence[str] | None = None,
    title: str | None = None,
) -> Path:
    """Grouped bar chart (one group per metric, one bar per system) saved as ``out``
    (its format from the suffix: :func:`plot_format`), written atomically."""
    fmt = plot_format(out)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = _metrics_of(results, metrics)
    systems = list(results)
    x = np.arange(len(cols))
    width = 0.8 / max(1, len(systems))
    fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(cols) * max(1, len(systems)) ** 0.5 + 2), 4))
    try:
        for i, s in enumerate(systems):
            vals = [float(results[s].get(m, np.nan)) for m in cols]
            bars = ax.bar(x + (i - (len(systems) - 1) / 2) * width, vals, width, label=s)
            ax.bar_label(bars, fmt="%.3f", fontsize=7, padding=1)
        ax.set_xticks(x, cols)
        ax.set_ylabel("score")
        top = max((v for r in results.values() for v in r.values()), default=1.0)
        ax.set_ylim(0, max(1.0, top * 1.1))
        if title:
            ax.set_title(title)
        if len(systems) > 1:
            ax.legend(fontsize=8)
        fig.tight_layout()
        with output_file(out) as tmp:
            fig.savefig(tmp, dpi=120, format=fmt)
    finally:
        plt.close(fig)
    return Path(out)

def print_table(
    rows: Sequence[dict[str, Any]],
    title: str | None = None,
    columns: Sequence[str] | None = None,
    floatfmt: str = "{:.4f}",
) -> None:
    """Print rows of dicts as a rich table (floats formatted with ``floatfmt``).

    Title, headers and cells are literal text: data such as ``[blue]`` or ``[/b]`` is
    shown as is, never read as rich markup (so callers must not escape it).
    """
    cols = list(columns or (rows[0].keys() if rows else []))
    table = Table(title=None if title is None else _literal(title), show_lines=False)
    for c in cols:
        table.add_column(_literal(c), overflow="fold")
    for r in rows:
        cells = []
        for c in cols:
            v = r.get(c, "")
            cells.append(_literal(floatfmt.format(v) if isinstance(v, float) else v))
        table.add_row(*cells)
    console.print(table)
