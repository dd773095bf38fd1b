"""The table of ``benchmarks/gpu.py``: rows with their targets, verdicts and reasons, as a
BenchmarkResult's ``groups`` and as markdown (no number here is computed, only laid out)."""

from __future__ import annotations

from typing import Any


def verdict(value: float, target: float, higher_better: bool) -> str:
    """``met`` or ``missed by N%`` (how far the measured value is from the target)."""
    ok = value >= target if higher_better else value <= target
    if ok:
        return "met"
    gap = (target - value) / target if higher_better else (value - target) / target
    return f"missed by {100 * gap:.0f}%"


def encode_rows(e: dict[str, Any], weights: str) -> dict[str, dict[str, Any]]:
    why = (f"tokeniser alone {e['tokenizer']:,.0f} docs/s; model alone "
           f"{e['model_only']:,.0f}" if e["e2e"] < 30_000 else "")
    return {
        f"encode {e['docs']:,} node docs end to end (~{e['mean_tokens']:.0f} tokens)": {
            "measured": f"{e['e2e']:,.0f} docs/s", "target": ">= 30,000 docs/s",
            "verdict": verdict(e["e2e"], 30_000, True), "beside": (
                f"model only {e['model_only']:,.0f} docs/s (128 tokens, batch {e['batch']}); "
                f"SentenceTransformer.encode {e['st_encode']:,.0f}; {weights}"),
            "why": why},
    }


def cross_encoder_rows(ce: dict[int, tuple[float, float]], tokens: int = 256) -> dict[str, dict[str, Any]]:
    targets = {20: 15.0, 100: 50.0, 1000: 400.0} if tokens == 256 else {}
    out = {}
    for n, (ms, peer) in ce.items():
        target = targets.get(n)
        out[f"cross-encoder 1 query x {n} passages, {tokens} tokens, p50"] = {
            "measured": f"{ms:.1f} ms", "target": f"<= {target:g} ms" if target else "",
            "verdict": verdict(ms, target, False) if target else "",
            "beside": f"CrossEncoder.predict {peer:.1f} ms ({peer / ms:.2f}x ours)",
            "why": "" if target is None or ms <= target else "tokenisation included (CPU)"}
    return out


def search_rows(s: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        f"exact top-100 over {s['n']:,} x {s['dim']} (torch, resident), 1 query p50": {
            "measured": f"{s['one_ms']:.2f} ms", "target": "<= 1 ms",
            "verdict": verdict(s["one_ms"], 1.0, False),
            "beside": (f"1,000 queries in {s['batch_ms']:.1f} ms; numpy exact one query "
                       f"{s['numpy_one_ms']:.1f} ms"), "why": ""},
    }


def grag_rows(g: dict[str, float], device: str, epochs: int,
              shape: tuple[int, int] = (43, 100)) -> dict[str, dict[str, Any]]:
    return {
        f"G-RAG training, {shape[0]} x {shape[1]} synthetic graphs, {epochs} epochs": {
            "measured": f"{g['device']:.1f} s on {device}", "target": "",
            "verdict": "", "beside": f"CPU {g['cpu']:.1f} s ({g['cpu'] / g['device']:.2f}x)",
            "why": ""},
    }


def recipe_rows(r: dict[str, Any] | None, device: str) -> dict[str, dict[str, Any]]:
    if r is None:
        return {}
    cpu = f"CPU {r['cpu_s'] / 60:.1f} min (recorded CV row)" if r.get("cpu_s") else "CPU: no record"
    return {
        "DL19 5-fold cross-encoder fine-tuning (200 steps a fold)": {
            "measured": f"{r['wall_s'] / 60:.1f} min on {device}", "target": "",
            "verdict": "", "beside": f"{cpu}; nDCG@10 {100 * (r['ndcg@10'] or 0):.2f} (MiniLM start)",
            "why": ""},
    }


def markdown(groups: dict[str, dict[str, Any]], header: dict[str, Any]) -> str:
    """The table as BENCHMARKS.md markdown, with the machine line above it."""
    lines = [f"## GPU: {header['gpu']} (torch {header['torch']}, {header['precision']})", "",
             f"Command: `{header['command']}`", "",
             "| work | measured | target | verdict | beside it | why |", "|---|---|---|---|---|---|"]
    for name, row in groups.items():
        cells = [name, *(str(row.get(k, "")).replace("|", "\\|") for k in
                         ("measured", "target", "verdict", "beside", "why"))]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
