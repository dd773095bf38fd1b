"""LLM document generation and verification for IMPLIRET-style pools (Appendix A.4).

:class:`LLMWriter` fills the category x style prompt of :mod:`.impliret_prompts` with a
scenario's INPUT (the paper's fields: users with personas, the implicit half of the tuple,
a starting phrase), asks any :class:`~skbsearch.llm.client.LLMClient`, and checks the
shape (exactly 10 ``name: utterance`` lines for a chat, one non-empty line for a post);
our own ``YYYY-MM-DD HH:MM, Name:`` headers are then put on every message.
:class:`LLMVerifier` asks the paper's feature-extraction question and compares the answer
with the tuple.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

from skbsearch.synth.impliret.bind import Scenario
from skbsearch.synth.impliret.prompts import EXTRACT, GENERATE, STARTING
from skbsearch.synth.impliret.verify import Verdict


def _user(p: Any) -> dict[str, str]:
    return {"name": p.name, "persona": p.persona}


def _relative_sentences(s: Scenario) -> list[str]:
    """The three 'bought' / 'forum_post' sentences of the arithmetic prompts."""
    t, f = s.tuple, s.fields
    if s.style == "multi":
        other = f"{s.topic} from {f['brand']} model {f['model_other']}"
        bought = f"{f['brand']}, model {f['model_bought']}"
        ref = f"model {f['model_other']}"
        last = f"model {f['model_bought']} was purchased"
    else:
        other = f"{f['item']} from {f['brand_other']}"
        bought = f"{f['item']} from {f['brand_bought']}"
        ref = other
        last = f"I bought {f['item']} from {f['brand_bought']}"
    if t.e == "Higher":
        rel = f"{bought}: {t.r:g} times more expensive than {ref}"
    else:
        rel = f"{other}: {t.r:g} times more expensive than {bought}"
    return [f"{other}: {t.p1} dollars", rel, last]


def offset_text(offset: int) -> str:
    """A day relative to the message, in digits as the paper's tuples give it ("3 days ago")."""
    named = {0: "today", -1: "yesterday", 1: "tomorrow"}
    if offset in named:
        return named[offset]
    return f"{-offset} days ago" if offset < 0 else f"in {offset} days"


def context_of(s: Scenario) -> dict[str, Any]:
    """The INPUT the paper's generation prompt for ``s`` expects."""
    t, f = s.tuple, s.fields
    if s.style == "multi":
        ctx: dict[str, Any] = {"topic": s.topic, "forum_question": s.forum_question, "user": _user(s.speaker),
                               "starting_phrase": s.opener}
        if s.category == "arithmetic":
            ctx["forum_post"] = _relative_sentences(s)
        elif s.category == "temporal":
            ctx["offset_days"] = offset_text(-t.offset)
        else:
            ctx["forum_post"] = t.landmark
        return ctx
    ctx = {"user_1": _user(s.speaker), "user_2": _user(s.partner), "starting_phrase": s.opener}
    if s.category == "arithmetic":
        ctx.update(shopping_type=f["shopping_type"], item_to_buy=f["item"], bought=_relative_sentences(s))
    elif s.category == "temporal":
        if t.kind == "seq":
            first = t.offsets[0]
            start = {0: "starting today", -1: "starting yesterday", 1: "starting tomorrow"}.get(first) or (
                f"starting {-first} days ago" if first < 0 else f"starting in {first} days")
            days = [f"{start}, for {len(t.offsets)} consecutive days"]
        else:
            days = [offset_text(o) for o in t.offsets]
        ctx.update(work=f["work"], offset_days=days, hours=[t.start_hour, t.end_hour],
                   message_time=[t.message_time[0].isoformat(), t.message_time[0].strftime("%A"),
                                 t.message_time[1]])
    else:
        ctx.update(trip_destination=t.landmark, trip_purpose=f["purpose"])
    return ctx


_LINE = re.compile(r"^\s*(?:[-*]\s*)?(?:\d{4}-\d{1,2}-\d{1,2}[ T]\d{1,2}:\d{2}\s*,?\s*)?\**(?P<who>[^:*\n]{1,40}?)\**\s*:\s*(?P<text>.+)$")


def parse_chat(text: str, s: Scenario) -> list[tuple[str, str]] | None:
    """``[(name, utterance)] * 10`` from an LLM's chat, or ``None`` when the shape is wrong."""
    a, b = s.speaker.name, s.partner.name if s.partner else ""
    names = {a.lower(): a, b.lower(): b, "user_1": a, "user_2": b, "user 1": a, "user 2": b}
    out = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        who = names.get(m.group("who").strip().strip("'\"[]").lower())
        if who is not None and m.group("text").strip():
            out.append((who, m.group("text").strip()))
    return out if len(out) == 10 and {w for w, _ in out} == {a, b} else None


def parse_post(text: str, s: Scenario) -> str | None:
    """The single response line of a forum post, or ``None``."""
    lines = [ln.strip().strip('"') for ln in text.strip().strip("`").splitlines() if ln.strip()]
    if not lines:
        return None
    body = " ".join(lines)
    body = re.sub(rf"^(?:response\s*:\s*|{re.escape(s.speaker.name)}\s*:\s*)", "", body, flags=re.I).strip()
    return body if 20 <= len(body) <= 3000 else None


class LLMWriter:
    """Documents from an LLM (see the module docstring).

    Args:
        client: any LLM client (``skbsearch.llm.get_client``).
        max_tokens: generation budget per document.
        temperature: sampling temperature for retries (the first attempt uses 0).
    """

    def __init__(self, client: Any, max_tokens: int = 700, temperature: float = 0.7) -> None:
        self.client = client
        self.max_tokens = max_tokens
        self.temperature = temperature

    def starting_phrases(self, style: str, n: int) -> list[str]:
        """Up to ``n`` distinct opening phrases (Figures 2 and 3)."""
        prompt = STARTING[style].format(n=n)
        text = self.client.chat([[{"role": "user", "content": prompt}]], max_tokens=30 * n + 50)[0]
        out: list[str] = []
        for line in text.splitlines():
            p = re.sub(r"^\s*(?:[-*]|\d+[.)])\s*", "", line).strip().strip('"')
            if 3 <= len(p) <= 120 and not re.search(r"\d", p) and p not in out:
                out.append(p)
        return out[:n]

    def write(self, s: Scenario, attempt: int = 0) -> str | None:
        """A document for ``s``, or ``None`` when the LLM's answer has the wrong shape."""
        prompt = GENERATE[(s.category, s.style)].replace("{context}", json.dumps(context_of(s), default=str))
        temp = 0.0 if attempt == 0 else self.temperature
        text = self.client.chat([[{"role": "user", "content": prompt}]], max_tokens=self.max_tokens,
                                temperature=temp)[0]
        stamp = s.when
        if s.style == "multi":
            body = parse_post(text, s)
            return None if body is None else f"{stamp:%Y-%m-%d %H:%M}, {s.speaker.name}: {body}"
        lines = parse_chat(text, s)
        if lines is None:
            return None
        out = []
        for k, (who, utt) in enumerate(lines):
            out.append(f"{stamp:%Y-%m-%d %H:%M}, {who}: {utt}")
            stamp += timedelta(minutes=(k * 7) % 5 + 1)
        return "\n".join(out)


class LLMVerifier:
    """The paper's feature-extraction check (Figures 6-15), by an LLM."""

    name = "llm"

    def __init__(self, client: Any, max_tokens: int = 200) -> None:
        self.client = client
        self.max_tokens = max_tokens

    def __call__(self, s: Scenario, document: str) -> Verdict:
        """Accept when the extracted answer holds the tuple's fact."""
        prompt = EXTRACT[s.category].replace("{context}", document)
        text = self.client.chat([[{"role": "user", "content": prompt}]], max_tokens=self.max_tokens)[0]
        low = text.lower().replace(",", "")
        t = s.tuple
        if s.category == "arithmetic":
            ok = re.search(rf"(?<!\d){t.p2}(?:\.0+)?(?!\d)", low) is not None
            want = f"price {t.p2}"
        elif s.category == "temporal":
            days = t.days if s.style == "uni" else (t.work_date,)
            ok = all(d.isoformat() in low for d in days)
            want = "dates " + ", ".join(d.isoformat() for d in days)
        else:
            ok = t.landmark.lower() in text.lower()
            want = f"location {t.landmark}"
        return Verdict(ok, "" if ok else f"LLM extraction missed the {want}: {text[:120]!r}")


class BothVerifier:
    """Passes only when every given verifier passes."""

    name = "both"

    def __init__(self, *verifiers: Any) -> None:
        self.verifiers = verifiers

    def __call__(self, s: Scenario, document: str) -> Verdict:
        """The first failing verdict, or a pass."""
        for v in self.verifiers:
            got = v(s, document)
            if not got.ok:
                return got
        return Verdict(True)


__all__ = ["BothVerifier", "LLMVerifier", "LLMWriter", "context_of", "offset_text", "parse_chat", "parse_post"]
