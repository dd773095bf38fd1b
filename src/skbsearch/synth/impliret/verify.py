"""Verification (IMPLIRET A.4, step 3): the tuple must be recoverable from the document, and
only implicitly stated.

:class:`EnricherVerifier` reads a document with skbsearch's own index-time enrichers (the
same ones the ``enrich`` pipeline uses) and accepts it when

- arithmetic: a price fact equals ``p2`` at full confidence and every price fact is
  ``p1`` or ``p2`` (no misread comparison), while ``p2`` is never written out;
- temporal: the date facts are exactly the tuple's days (uni-speaker: each with the
  slot's start and end hour), and no calendar date is written in a message body;
- world knowledge: every linked place is the tuple's landmark in the tuple's country,
  and no country name or demonym appears anywhere.

An LLM verifier (the paper's feature-extraction prompts) is in :mod:`.impliret_llm`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from skbsearch.enrich import ArithmeticEnricher, TemporalEnricher, normalize_numbers
from skbsearch.enrich.temporal_parse import find_dates
from skbsearch.synth.impliret.bind import Scenario
from skbsearch.synth.impliret.places import CueDetector

_HEADER = re.compile(r"^\d{4}-\d{1,2}-\d{1,2} \d{1,2}:\d{2}, [^:\n]{1,40}: ", re.M)


@dataclass(frozen=True)
class Verdict:
    """Whether a document passed, and why not."""

    ok: bool
    reason: str = ""


def bodies(document: str) -> str:
    """The message texts of a document without their ``date time, Name:`` headers."""
    return _HEADER.sub("", document)


def _explicit_number(text: str, value: int) -> bool:
    norm = normalize_numbers(text)
    return re.search(rf"(?<![\d,.]){value:,}(?![\d,])|(?<![\d,.]){value}(?![\d,])", norm) is not None


class EnricherVerifier:
    """Checks a document against its scenario with the enrichers (see the module docstring).

    Args:
        gazetteer: a :class:`~skbsearch.enrich.GazetteerEnricher` (world knowledge only).
        cues: the country-cue detector of the same gazetteer.
    """

    name = "enrich"

    def __init__(self, gazetteer: Any = None, cues: CueDetector | None = None) -> None:
        self.gazetteer = gazetteer
        self.cues = cues
        self.temporal = TemporalEnricher()
        self.arithmetic = ArithmeticEnricher()

    def __call__(self, s: Scenario, document: str) -> Verdict:
        """The verdict for one document."""
        if not document.strip():
            return Verdict(False, "empty document")
        if s.category == "arithmetic":
            return self._arithmetic(s, document)
        if s.category == "temporal":
            return self._temporal(s, document)
        return self._wknow(s, document)

    def _arithmetic(self, s: Scenario, doc: str) -> Verdict:
        t = s.tuple
        if _explicit_number(bodies(doc), t.p2):
            return Verdict(False, f"the queried price {t.p2} is written out")
        facts = [f for f in self.arithmetic.enrich("d", doc).facts if f.kind == "price"]
        values = {round(float(f.value), 2) for f in facts}
        if not any(abs(float(f.value) - t.p2) < 0.01 and f.confidence >= 1.0 for f in facts):
            return Verdict(False, f"price {t.p2} not recovered (read {sorted(values)})")
        if not values <= {float(t.p1), float(t.p2)}:
            return Verdict(False, f"unexpected prices {sorted(values - {float(t.p1), float(t.p2)})}")
        return Verdict(True)

    def _temporal(self, s: Scenario, doc: str) -> Verdict:
        t = s.tuple
        if find_dates(bodies(doc)):
            return Verdict(False, "a calendar date is written in a message")
        facts = [f for f in self.temporal.enrich("d", doc).facts if f.kind == "date"]
        got = {str(f.value) for f in facts}
        want = {d.isoformat() for d in t.days} if s.style == "uni" else {t.work_date.isoformat()}
        if got != want:
            return Verdict(False, f"dates read {sorted(got)}, expected {sorted(want)}")
        if s.style == "uni":
            span = (f"{t.start_hour:02d}:00", f"{t.end_hour:02d}:00")
            bad = [f for f in facts if (f.attrs.get("time_start"), f.attrs.get("time_end")) != span]
            if bad:
                got_span = (bad[0].attrs.get("time_start"), bad[0].attrs.get("time_end"))
                return Verdict(False, f"hours read {got_span}, expected {span}")
        return Verdict(True)

    def _wknow(self, s: Scenario, doc: str) -> Verdict:
        t = s.tuple
        if self.cues is not None and self.cues.has_cue(doc):
            return Verdict(False, "a country name or demonym appears in the document")
        if self.gazetteer is None:
            return Verdict(True)
        places = [f for f in self.gazetteer.enrich("d", doc).facts if f.kind == "place"]
        if not places:
            return Verdict(False, f"landmark {t.landmark!r} not linked")
        wrong = [f for f in places if f.attrs.get("country") != t.country or f.value != t.landmark]
        if wrong:
            return Verdict(False, f"linked {wrong[0].value!r} ({wrong[0].attrs.get('country')}), expected "
                                  f"{t.landmark!r} ({t.country})")
        return Verdict(True)
