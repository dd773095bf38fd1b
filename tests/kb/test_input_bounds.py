"""Bounded parsing: the attack files of issue 31 fail fast, with little memory, and a clear
error naming the file and line (never a MemoryError or a traceback).

The attack files are small generated ones, built the way the issue built them: a "billion
laughs" DTD (10 levels of 10 references), its 10^8 variant, a quadratic blowup (one 40 KB
entity referenced 20,000 times: 800 MB), and a Turtle literal over 16 MiB. They are loaded in
one child process whose peak memory and time are measured.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.lines import MAX_LINE_BYTES, iter_lines
from skbsearch.kb.loaders import load_csv, load_jsonl, load_kg, load_triples

pytest.importorskip("pyoxigraph")

from rdf_attacks import laughs, quadratic  # noqa: E402

_CHILD = r"""
import json, sys, time
from skbsearch.core.errors import InputError
from skbsearch.kb.loaders import load
out = {}
for path in sys.argv[1:]:
    t0 = time.perf_counter()
    try:
        load(path)
        out[path] = ["loaded", None, None]
    except InputError as e:
        out[path] = [e.reason, e.line, round(time.perf_counter() - t0, 2)]
# VmHWM: this process image's own peak (ru_maxrss survives exec: it would start at the
# forking pytest process's size)
hwm = [ln for ln in open("/proc/self/status") if ln.startswith("VmHWM:")]
out["peak_mb"] = int(hwm[0].split()[1]) / 1024 if hwm else 0.0
print(json.dumps(out))
"""


def test_attack_files_fail_fast_with_bounded_memory(tmp_path: Path) -> None:
    """All the issue's attack files in one child: each an InputError with its line, in
    seconds, the child's peak RSS far below what expanding them would take (GBs)."""
    files = {"laughs.rdf": laughs(9), "laughs8.rdf": laughs(8), "quadratic.rdf": quadratic()}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    big = tmp_path / "big.ttl"  # a literal over 16 MiB, on line 3
    with big.open("w") as fh:
        fh.write("@prefix ex: <http://example.org/> .\n\n")
        fh.write('ex:a ex:p "' + "x" * (17 * 1024 * 1024) + '" .\n')
    paths = [str(tmp_path / n) for n in files] + [str(big)]
    src = str(Path(__file__).parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))}
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", _CHILD, *paths], capture_output=True, text=True,
                         timeout=120, env=env)
    wall = time.perf_counter() - t0
    assert res.returncode == 0, res.stderr[-2000:]
    got = json.loads(res.stdout)
    # the child's own peak (RUSAGE_CHILDREN would be the largest child this test process ever
    # waited for: in a whole-suite run, another test's model server; Linux only, else 0)
    peak_mb = got.pop("peak_mb")
    for p in paths[:3]:
        assert "entit" in got[p][0] and got[p][1] is not None and got[p][2] < 5, got[p]
    assert "longer than 16 MiB" in got[str(big)][0] and got[str(big)][1] == 3, got[str(big)]
    assert wall < 60
    assert peak_mb < 1500, f"child peaked at {peak_mb:.0f} MB"


def test_cli_turtle_literal_over_16_mib_is_one_line_error(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from skbsearch.cli import app

    big = tmp_path / "big.ttl"
    big.write_text('<http://e/a> <http://e/p> "' + "x" * (16 * 1024 * 1024 + 10) + '" .\n')
    res = CliRunner().invoke(app, ["kb", "build", str(big), str(tmp_path / "out.skb")])
    assert res.exit_code == 2, res.output
    assert "longer than 16 MiB" in res.output and "Traceback" not in res.output
    assert f"{big}:1" in res.output
    assert not (tmp_path / "out.skb").exists()


# ------------------------------------------------------------------ line caps
def _long_line(path: Path, prefix: bytes, n: int = MAX_LINE_BYTES + 10) -> None:
    with path.open("wb") as fh:
        fh.write(prefix)
        fh.write(b"x" * n)
        fh.write(b"\n")


def test_iter_lines_stops_at_the_cap_without_reading_the_whole_line(tmp_path: Path) -> None:
    f = tmp_path / "f.txt"
    _long_line(f, b"short\n")
    lines = iter_lines(f, limit=1000)
    assert next(lines) == (1, b"short\n")
    with pytest.raises(InputError) as err:
        next(lines)
    assert (err.value.file, err.value.line) == (str(f), 2)


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "triples", "kg"])
def test_every_line_reader_refuses_a_line_over_the_cap(tmp_path: Path, fmt: str) -> None:
    if fmt == "jsonl":
        f = tmp_path / "nodes.jsonl"
        _long_line(f, b'{"id": "a", "type": "t"}\n{"id": "b", "type": "t", "name": "')
        call = lambda: load_jsonl(f)  # noqa: E731
    elif fmt == "csv":
        f = tmp_path / "nodes.csv"
        _long_line(f, b"id,type,name\na,t,x\nb,t,")
        call = lambda: load_csv(f)  # noqa: E731
    elif fmt == "triples":
        f = tmp_path / "kb.tsv"
        _long_line(f, b"a\tr\tb\nb\tr\t")
        call = lambda: load_triples(f)  # noqa: E731
    else:
        (tmp_path / "train.tsv").write_text("a\tr\tb\n")
        (tmp_path / "valid.tsv").write_text("")
        (tmp_path / "test.tsv").write_text("")
        f = tmp_path / "entity2text.txt"
        _long_line(f, b"a\tAda\nb\t", n=40 * 1024 * 1024)  # over Arrow's 32 MiB block too
        call = lambda: load_kg(tmp_path)  # noqa: E731
    with pytest.raises(InputError) as err:
        call()
    assert "longer than 16 MiB" in err.value.reason
    assert (err.value.file, err.value.line) == (str(f), {"csv": 3}.get(fmt, 2))


def test_csv_cell_over_128_kib_loads(tmp_path: Path) -> None:
    """The stdlib csv module's 128 KiB cell limit is raised to the line cap."""
    f = tmp_path / "nodes.csv"
    f.write_text("id,type,description\na,t," + "w " * 100_000 + "\n")
    assert len(load_csv(f).node(0).fields["description"]) == 200_000


def test_out_of_memory_is_one_line_not_a_traceback(tmp_path: Path, monkeypatch) -> None:
    """Fault injection: whatever a reader's bounds leave, running out of memory is one line."""
    from typer.testing import CliRunner

    import skbsearch.kb.loaders as loaders
    from skbsearch.cli import app

    def exhausted(*args, **kwargs):
        raise MemoryError

    (tmp_path / "nodes.jsonl").write_text('{"id": "a", "type": "t"}\n')
    monkeypatch.setattr(loaders, "load", exhausted)
    res = CliRunner().invoke(app, ["kb", "build", str(tmp_path / "nodes.jsonl"), str(tmp_path / "o.skb")])
    assert res.exit_code == 1 and "out of memory" in res.output and "Traceback" not in res.output
    assert isinstance(res.exception, SystemExit)


@pytest.mark.parametrize("name,head", [("q.txt", b"first question\n"), ("q.tsv", b"id\ttext\nq1\tfirst\n"),
                                       ("q.jsonl", b'{"id": "q1", "text": "first"}\n')])
def test_query_files_refuse_a_line_over_the_cap(tmp_path: Path, name: str, head: bytes) -> None:
    from skbsearch.datasets import read_queries

    f = tmp_path / name
    _long_line(f, head, n=MAX_LINE_BYTES + 10)
    with pytest.raises(InputError) as err:
        read_queries(f)
    assert "longer than 16 MiB" in err.value.reason
    assert (err.value.file, err.value.line) == (str(f), head.count(b"\n") + 1)
