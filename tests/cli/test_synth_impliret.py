"""`skb synth impliret` (cli/synth_impliret.py): one SYNTHETIC pool written into a folder, its
report as JSON or a table with the command that evaluates it, and an existing pool kept
unless --force. (Generation itself, and more of the command's refusals:
tests/synth/impliret/test_generate.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import assert_clean_error, invoke

ARGS = ("--category", "arithmetic", "--style", "uni", "--sets", "1", "--tuples", "3")


def test_a_pool_and_its_report_as_json(tmp_path: Path) -> None:
    r = invoke("synth", "impliret", tmp_path, *ARGS, "--json")
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    pool = Path(report["path"])
    assert pool == tmp_path / "arithmetic_unispeaker.jsonl"
    lines = pool.read_text(encoding="utf-8").splitlines()
    assert len(lines) == report["documents"] >= 1 and report["requested"] == 3
    assert {"document", "question", "answer"} <= set(json.loads(lines[0]))


def test_the_table_names_the_evaluation_and_a_pool_is_kept_without_force(tmp_path: Path) -> None:
    r = invoke("synth", "impliret", tmp_path, *ARGS)
    assert r.exit_code == 0, r.output
    assert "SYNTHETIC IMPLIRET pool" in r.output and "documents" in r.output
    assert f"evaluate with: skb bench impliret --data {tmp_path}" in " ".join(r.output.split())
    before = (tmp_path / "arithmetic_unispeaker.jsonl").read_bytes()
    assert_clean_error(invoke("synth", "impliret", tmp_path, *ARGS, "--seed", "9"), "exists", "--force")
    assert (tmp_path / "arithmetic_unispeaker.jsonl").read_bytes() == before
    assert invoke("synth", "impliret", tmp_path, *ARGS, "--seed", "9", "--force", "-q").output == ""
    assert (tmp_path / "arithmetic_unispeaker.jsonl").read_bytes() != before
