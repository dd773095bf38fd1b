"""The Run and Qrels the hand-computed metric tests of ``tests/eval/metrics`` share."""

from __future__ import annotations

from skbsearch.core.types import Qrels, Run

RUN = Run({"q1": {"d3": 0.9, "d1": 0.8, "d5": 0.7, "d2": 0.6}, "extra": {"d1": 1.0}})
QRELS = Qrels({"q1": {"d1": 2, "d2": 1, "d3": 0, "d4": 1}, "q2": {"d9": 1}})
