"""Exports of an :class:`~skbsearch.eval.experiment.ExperimentResult`: table rows, CSV,
JSON, LaTeX (ranx's layout: booktabs, best in bold, significance superscripts), a
DataFrame and a bar chart."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skbsearch.core.errors import MissingDependencyError
from skbsearch.core.outfile import write_output
from skbsearch.eval.report import plot_results

if TYPE_CHECKING:
    import numpy as np

    from skbsearch.eval.significance import Comparison

BETTER, WORSE = "▲", "▼"
TEST_LABELS = {
    "t": "a paired Student's t-test",
    "wilcoxon": "a Wilcoxon signed-rank test",
    "randomization": "a paired randomization test",
}
_SUPERSCRIPT = str.maketrans("abcdefghijklmnopqrstuvwxyz0123456789",
                             "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖqʳˢᵗᵘᵛʷˣʸᶻ⁰¹²³⁴⁵⁶⁷⁸⁹")
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def format_p(p: float | None, digits: int = 4) -> str:
    """A p-value for people: ``0.0312``, ``<0.0001``, or ``—`` when there is none."""
    if p is None or math.isnan(p):
        return "—"
    floor = 10.0**-digits
    return f"<{floor:.{digits}f}" if p < floor else f"{p:.{digits}f}"


def _clean(x: Any) -> Any:
    return None if isinstance(x, float) and math.isnan(x) else x


class ReportMixin:
    """Output methods shared by experiment results (see the module docstring)."""

    if TYPE_CHECKING:
        systems: list[str]
        metrics: list[str]
        query_ids: list[str]
        scores: dict[str, dict[str, np.ndarray]]
        ms_per_query: dict[str, float | None]
        setup_s: dict[str, float | None]
        baseline: str | None
        test: str
        correction: str | None
        alpha: float
        comparisons: list[Comparison]
        per_query: bool

        @property
        def means(self) -> dict[str, dict[str, float]]: ...

        def comparison(self, system: str, other: str, metric: str) -> Comparison | None: ...

    # ------------------------------------------------------------------ marks
    def label(self, system: str) -> str:
        """The letter of a system in pairwise mode (a, b, …; 27th on: numbers)."""
        i = self.systems.index(system)
        return chr(ord("a") + i) if i < 26 else str(i + 1)

    def beats(self, system: str, metric: str) -> list[str]:
        """Systems ``system`` is significantly better than on ``metric``."""
        out = []
        for other in self.systems:
            c = self.comparison(system, other, metric) if other != system else None
            if c is not None and c.significant and c.delta > 0:
                out.append(other)
        return out

    def mark(self, system: str, metric: str) -> str:
        """``▲``/``▼`` against the baseline, or superscript labels of the beaten systems."""
        if self.baseline is not None:
            c = self.comparison(system, self.baseline, metric)
            if c is None or not c.significant:
                return ""
            return BETTER if c.delta > 0 else WORSE
        return "".join(self.label(o) for o in self.beats(system, metric)).translate(_SUPERSCRIPT)

    @property
    def has_latency(self) -> bool:
        """Whether any system was a timed stage."""
        return any(v is not None for v in self.ms_per_query.values())

    # ------------------------------------------------------------------ rows
    def rows(self) -> list[dict[str, Any]]:
        """Machine rows, one a system: means, p-values (adjusted), marks, wins/losses, ms/query."""
        means = self.means
        out = []
        for s in self.systems:
            row: dict[str, Any] = {"system": s}
            if self.baseline is None:
                row["label"] = self.label(s)
            for m in self.metrics:
                row[m] = means[s][m]
                if self.baseline is not None:
                    c = self.comparison(s, self.baseline, m)
                    row[f"{m} p-value"] = _clean(c.p_adjusted) if c else None
                    row[f"{m} sig"] = self.mark(s, m)
                    row[f"{m} +"] = c.better if c else None
                    row[f"{m} -"] = c.worse if c else None
                else:
                    row[f"{m} beats"] = ",".join(self.label(o) for o in self.beats(s, m))
            row["ms/query"] = self.ms_per_query.get(s)
            out.append(row)
        return out

    def __str__(self) -> str:
        """A plain-text table (what ``print(result)`` shows)."""
        rows = self.table_rows()
        if not rows:
            return "(no systems)"
        cols = list(rows[0])
        widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
        lines = ["  ".join(c.ljust(widths[c]) for c in cols),
                 "  ".join("-" * widths[c] for c in cols)]
        lines += ["  ".join(str(r[c]).ljust(widths[c]) for c in cols) for r in rows]
        return "\n".join(lines)

    def table_rows(self, digits: int = 4) -> list[dict[str, str]]:
        """Display rows (strings): means with marks, baseline p-values, ms/query."""
        means = self.means
        out = []
        for s in self.systems:
            row = {"#": self.label(s)} if self.baseline is None else {}
            row["system"] = s + (" (baseline)" if s == self.baseline else "")
            for m in self.metrics:
                row[m] = f"{means[s][m]:.{digits}f}{self.mark(s, m)}"
            if self.baseline is not None:
                for m in self.metrics:
                    c = self.comparison(s, self.baseline, m)
                    row[f"{m} p"] = format_p(c.p_adjusted if c else None, digits)
            if self.has_latency:
                ms = self.ms_per_query.get(s)
                row["ms/query"] = "—" if ms is None else f"{ms:.2f}"
            out.append(row)
        return out

    def per_query_rows(self) -> list[dict[str, Any]]:
        """``{"system", "query", metric: value…}`` for every system and query."""
        return [
            {"system": s, "query": q, **{m: float(self.scores[s][m][i]) for m in self.metrics}}
            for s in self.systems
            for i, q in enumerate(self.query_ids)
        ]

    def caption(self) -> str:
        """One sentence saying how significance was decided."""
        corr = f", {self.correction} correction" if self.correction else ""
        how = f"{TEST_LABELS[self.test]} (p < {self.alpha}{corr})"
        if self.baseline is not None:
            return (f"{BETTER}/{WORSE}: significantly better/worse than {self.baseline} by {how} "
                    f"over {len(self.query_ids)} queries.")
        return (f"Superscripts: the systems a mean is significantly better than, by {how} over "
                f"{len(self.query_ids)} queries.")

    # ------------------------------------------------------------------ exports
    def to_dict(self) -> dict[str, Any]:
        """Everything as plain JSON-able data (NaN becomes ``None``)."""
        d: dict[str, Any] = {
            "metrics": self.metrics, "systems": self.systems, "baseline": self.baseline,
            "test": self.test, "correction": self.correction, "alpha": self.alpha,
            "queries": len(self.query_ids), "results": self.means,
            "ms_per_query": self.ms_per_query,
            "setup_s": {k: None if v is None else round(v, 3) for k, v in self.setup_s.items()},
            "comparisons": [{k: _clean(v) for k, v in asdict(c).items()}
                            for c in self.comparisons],
        }
        if self.per_query:
            d["per_query"] = {s: {q: {m: float(self.scores[s][m][i]) for m in self.metrics}
                                  for i, q in enumerate(self.query_ids)} for s in self.systems}
        return d

    def to_json(self, path: str | Path | None = None) -> str:
        """JSON text of :meth:`to_dict`; written to ``path`` if given."""
        return _write(json.dumps(self.to_dict(), indent=2, ensure_ascii=False), path)

    def to_csv(self, path: str | Path | None = None, *, per_query: bool = False) -> str:
        """CSV of :meth:`rows` (or of :meth:`per_query_rows`); written to ``path`` if given."""
        rows = self.per_query_rows() if per_query else self.rows()
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else [], lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: ("" if v is None else v) for k, v in r.items()} for r in rows)
        return _write(buf.getvalue(), path)

    def to_dataframe(self, *, per_query: bool = False) -> Any:
        """A pandas DataFrame of :meth:`rows` (or :meth:`per_query_rows`)."""
        try:
            import pandas as pd
        except ImportError:
            raise MissingDependencyError("pandas", "test", "Experiment DataFrames") from None
        return pd.DataFrame(self.per_query_rows() if per_query else self.rows())

    def to_latex(self, path: str | Path | None = None, *, digits: int = 4,
                 caption: str | None = None, label: str = "tab:results") -> str:
        """A booktabs table (ranx's layout); needs ``booktabs`` and, for ▲/▼, ``amssymb``."""
        means = self.means
        pairwise = self.baseline is None
        cols = (["\\#"] if pairwise else []) + ["System"] + [latex_escape(m) for m in self.metrics]
        if self.has_latency:
            cols.append("ms/query")
        best = {m: max(means[s][m] for s in self.systems) for m in self.metrics}
        lines = ["% \\usepackage{booktabs}" + ("" if pairwise else " \\usepackage{amssymb}"),
                 "\\begin{table}[ht]", "\\centering",
                 f"\\caption{{{_latex_caption(caption or self.caption())}}}",
                 f"\\begin{{tabular}}{{{'c' if pairwise else ''}l{'r' * (len(cols) - 1 - pairwise)}}}",
                 "\\toprule", " & ".join(f"\\textbf{{{c}}}" for c in cols) + " \\\\", "\\midrule"]
        for s in self.systems:
            cells = [self.label(s)] if pairwise else []
            cells.append(latex_escape(s))
            for m in self.metrics:
                text = f"{means[s][m]:.{digits}f}"
                if len(self.systems) > 1 and round(means[s][m], digits) == round(best[m], digits):
                    text = f"\\textbf{{{text}}}"
                cells.append(text + self._latex_mark(s, m))
            if self.has_latency:
                ms = self.ms_per_query.get(s)
                cells.append("--" if ms is None else f"{ms:.2f}")
            lines.append(" & ".join(cells) + " \\\\")
        lines += ["\\bottomrule", "\\end{tabular}", f"\\label{{{label}}}", "\\end{table}"]
        return _write("\n".join(lines) + "\n", path)

    def _latex_mark(self, system: str, metric: str) -> str:
        if self.baseline is None:
            letters = "".join(self.label(o) for o in self.beats(system, metric))
            return f"$^{{{letters}}}$" if letters else ""
        mark = self.mark(system, metric)
        if not mark:
            return ""
        return "$^{\\blacktriangle}$" if mark == BETTER else "$^{\\blacktriangledown}$"

    def plot(self, path: str | Path, title: str | None = None) -> Path:
        """Grouped bar chart of the means (PNG; needs matplotlib, the ``[plot]`` extra)."""
        return plot_results(self.means, path, self.metrics, title=title)


def _latex_caption(text: str) -> str:
    text = latex_escape(text).replace("<", "$<$")
    return text.replace(BETTER, "$\\blacktriangle$").replace(WORSE, "$\\blacktriangledown$")


def _write(text: str, path: str | Path | None) -> str:
    if path is not None:
        write_output(path, text)
    return text
