"""The common benchmark result: one JSON shape for every benchmark.

    {"benchmark": "metaqa", "config": {...}, "metrics": {"hits@1": 0.97, ...},
     "groups": {"1-hop": {"hits@1": 0.97, ...}, ...}, "latency_ms": {"p50": 1.2, ...},
     "device": {"device": "cuda:0", "dtype": "float16", "gpu": "NVIDIA H100 80GB HBM3",
                "torch": "2.11.0"}}

Metrics are fractions in 0..1 (tables may show them as percentages); ``groups`` holds
the same metrics per subset (hop, category, ...); ``latency_ms`` per-query latency
percentiles, overall and per group (``"1-hop.p95"``); ``device`` where the models ran
(:func:`skbsearch.core.devices.current_record`: the process's default device once torch is
imported, else the CPU).

``config`` also carries how ``benchmarks/make_report.py`` shows a result (:data:`PRESENTATION`:
title, note, order, summary, ...). A rerun that writes over a result file keeps those keys
from the file it replaces unless it sets them itself, so rerunning a benchmark changes its
numbers, not how BENCHMARKS.md presents them. The ``command`` and ``protocol`` say how the
numbers were made, so they are never carried over (a rerun with other options would show the
old command beside the new numbers).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from skbsearch.core.devices import current_record
from skbsearch.core.outfile import write_output
from skbsearch.eval.report import print_table

#: ``config`` keys that say how a result is shown (``benchmarks/make_report.py``), not what it measured
PRESENTATION = ("title", "note", "pivot", "columns", "overall_row", "percent", "show_latency", "order",
                "summary", "summary_table", "label")


def _presentation(path: Path, benchmark: str) -> dict[str, Any]:
    """The presentation keys of the result file at ``path`` when it holds a result of the same
    benchmark (anything else, or a file that does not parse, gives none)."""
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(old, dict) or old.get("benchmark") != benchmark or not isinstance(old.get("config"), dict):
        return {}
    return {k: old["config"][k] for k in PRESENTATION if k in old["config"]}


@dataclass
class BenchmarkResult:
    """A benchmark's numbers and how they were obtained."""

    benchmark: str
    config: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    groups: dict[str, dict[str, float]] = field(default_factory=dict)
    latency_ms: dict[str, float] = field(default_factory=dict)
    device: dict[str, Any] = field(default_factory=current_record)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)

    def to_json(self, path: str | Path | None = None) -> str:
        """The result as JSON text; also written (atomically) to ``path`` when given, keeping
        the :data:`PRESENTATION` keys of a result of the same benchmark already there that
        this one does not set."""
        data = self.to_dict()
        if path is not None and Path(path).is_file():
            kept = _presentation(Path(path), self.benchmark)
            data["config"] = {**data["config"], **{k: v for k, v in kept.items() if k not in data["config"]}}
        text = json.dumps(data, indent=2, default=str)
        if path is not None:
            write_output(path, text + "\n")
        return text

    @classmethod
    def from_json(cls, text_or_path: str | Path) -> BenchmarkResult:
        """Read a result written by :meth:`to_json` (a path or the JSON text)."""
        p = Path(text_or_path) if not str(text_or_path).lstrip().startswith("{") else None
        data = json.loads(p.read_text(encoding="utf-8") if p is not None else str(text_or_path))
        return cls(**{k: data.get(k, {}) for k in ("config", "metrics", "groups", "latency_ms")},
                   benchmark=data["benchmark"], device=data.get("device") or {})

    def rows(self, percent: bool = True) -> list[dict[str, Any]]:
        """One table row per group plus an ``all`` row (metrics as % when ``percent``)."""
        scale = 100.0 if percent else 1.0
        out = []
        for name, values in [*self.groups.items(), ("all", self.metrics)]:
            row: dict[str, Any] = {"group": name}
            row.update({k: float(v) * scale for k, v in values.items()})
            for q in ("p50", "p95"):
                key = q if name == "all" else f"{name}.{q}"
                if key in self.latency_ms:
                    row[f"{q} ms"] = float(self.latency_ms[key])
            out.append(row)
        return out

    def columns(self, percent: bool = True) -> list[dict[str, Any]]:
        """The transposed table: one row per metric (and latency), one column per group."""
        scale = 100.0 if percent else 1.0
        groups = [*self.groups, "all"]
        values = {**self.groups, "all": self.metrics}
        names = list(dict.fromkeys(m for g in groups for m in values[g]))
        out: list[dict[str, Any]] = []
        for m in names:
            row: dict[str, Any] = {"metric": m}
            row.update({g: float(values[g][m]) * scale for g in groups if m in values[g]})
            out.append(row)
        for q in ("p50", "p95"):
            row = {"metric": f"latency {q} (ms)"}
            for g in groups:
                key = q if g == "all" else f"{g}.{q}"
                if key in self.latency_ms:
                    row[g] = float(self.latency_ms[key])
            if len(row) > 1:
                out.append(row)
        return out

    def print(self, title: str | None = None) -> None:
        """Print the result as a rich table: metrics (in %) by group, then latency (ms)."""
        print_table(self.columns(), title=title or f"{self.benchmark}", floatfmt="{:.2f}",
                    columns=["metric", *self.groups, "all"])
