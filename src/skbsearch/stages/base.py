"""Operations over whole pipelines of registered stages: binding a context, preparing (set-up
before the first query), fitting in order (and reporting what each fit kept), structural
equality."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, TypeVar

from skbsearch.core.operators import Cutoff, Pipeline
from skbsearch.core.stage import Context, SpecStage, prepare  # noqa: F401 (prepare: re-exported)
from skbsearch.core.types import Qrels, Query, Run, as_queries


def bind(stage: Any, context: Context) -> Any:
    """Bind ``context`` to every registered stage inside ``stage`` (pipelines, fusions)."""
    if isinstance(stage, Pipeline):
        for s in stage.stages:
            bind(s, context)
    elif isinstance(stage, SpecStage):
        stage.bind(context)
        for child in getattr(stage, "children", ()):
            bind(child, context)
    return stage


#: the pipeline type :func:`fit` returns as it was given (an editor completes its methods)
StageT = TypeVar("StageT")


def fit(stage: StageT, queries: Any, qrels: Qrels, run: Run | None = None) -> StageT:
    """Fit every trainable stage of a pipeline in order, each on the run it receives (a
    fusion's children first, on the fusion's input run; then the fusion itself); the
    pipeline is returned with ``fit_report`` (:class:`FitReport`: what each stage learned
    and kept), also logged (logger ``skbsearch.fit``, level INFO)."""
    _fit(stage, as_queries(queries), qrels, run)
    report = FitReport([(repr(s), s.fit_summary(), getattr(s.params, "model", None))
                        for s in trainable_parts(stage)])
    stage.fit_report = report  # type: ignore[attr-defined]  # any pipeline object carries its report
    logging.getLogger("skbsearch.fit").info("%s", report)
    return stage


def _fit(stage: Any, queries: list[Query], qrels: Qrels, run: Run | None) -> None:
    parts = stage.stages if isinstance(stage, Pipeline) else [stage]
    for part in parts:
        for child in getattr(part, "children", ()):
            _fit(child, queries, qrels, run)
        if isinstance(part, SpecStage) and part.trainable:
            part.fit(queries, qrels, run)
        if part is not parts[-1]:
            run = part(queries, run)


def trainable_parts(stage: Any) -> list[SpecStage]:
    """The trainable registered stages of a pipeline, in fitting order (fusion children first)."""
    out: list[SpecStage] = []
    for part in stage.stages if isinstance(stage, Pipeline) else [stage]:
        for child in getattr(part, "children", ()):
            out.extend(trainable_parts(child))
        if isinstance(part, SpecStage) and part.trainable:
            out.append(part)
    return out


@dataclass
class FitReport:
    """What :func:`fit` learned and kept: per trainable stage its spec, its
    :meth:`~skbsearch.core.stage.SpecStage.fit_summary` and the saved model it names, if any.

    ``repr`` is one line (``fitted=False`` when every stage kept its untrained behaviour or
    its spec's parameters); ``str`` one line a stage with the numbers the fit compared."""

    stages: list[tuple[str, dict[str, Any] | None, str | None]] = field(default_factory=list)

    @property
    def fitted(self) -> bool:
        """Whether any stage kept something it learned."""
        return any(s is not None and s.get("kept") == "fitted" for _, s, _ in self.stages)

    def to_dict(self) -> dict[str, Any]:
        """``{"fitted": bool, "stages": [{"stage", "model", **summary}]}``, JSON-ready."""
        return {"fitted": self.fitted,
                "stages": [{"stage": r, "model": m, **(s or {"kept": "not fitted"})} for r, s, m in self.stages]}

    def __repr__(self) -> str:
        parts = [f"{r}: {_kept(s)}" + (f", model={m!r}" if m else "") for r, s, m in self.stages]
        return f"FitReport({'; '.join(parts)}, fitted={self.fitted})"

    def __str__(self) -> str:
        if not self.stages:
            return "fit: no trainable stage"
        return "\n".join(f"fit {r}: {_kept(s)}{_numbers(s)}" + (f"; model {m}" if m else "")
                         for r, s, m in self.stages)


def _kept(summary: dict[str, Any] | None) -> str:
    if summary is None:
        return "not fitted"
    kept = summary.get("kept")
    what = {"untrained": "kept untrained", "spec": "kept the spec's parameters"}.get(str(kept), "kept fitted")
    learned = [f"{k} {summary[k]}" for k in ("blend", "weights", "top")
               if k in summary and not isinstance(summary[k], dict)]  # (the graph's weights: a dict)
    return what + (f" ({', '.join(learned)})" if learned else "")


def _numbers(summary: dict[str, Any] | None) -> str:
    if not summary:
        return ""
    held = summary.get("held_out")
    if held:
        fitted, best = held["fitted"], held.get("best_blend")
        tried = f", best blend tried {best['blend']}: {best['mrr']}" if best else ""
        return (f"; held-out MRR {held['untrained']['mrr']} untrained, {fitted['mrr']} kept{tried} "
                f"(Hit@10 {held['untrained']['hit@10']} / {fitted['hit@10']}; {held['queries']} queries)")
    train = summary.get("training")
    if train:
        before = train.get("spec", {}).get("mrr")
        return (f"; MRR on the {train['queries']} judged queries"
                + (f" {before} with the spec's parameters," if before is not None else "")
                + f" {train['fitted']['mrr']} kept")
    return f"; {summary['note']}" if "note" in summary else ""


def stages_equal(a: Any, b: Any) -> bool:
    """Structural equality of two pipelines built by the spec parser or the operators."""
    if isinstance(a, Pipeline) and isinstance(b, Pipeline):
        return len(a.stages) == len(b.stages) and all(
            stages_equal(x, y) for x, y in zip(a.stages, b.stages, strict=True))
    if isinstance(a, Cutoff) and isinstance(b, Cutoff):
        return a.k == b.k
    return a == b
