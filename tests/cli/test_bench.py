"""`skb bench` (cli/bench.py): one command a benchmark, each registered from its own module
with the arguments checked, errors as one clean line and --device/--precision applied first."""

from __future__ import annotations

import pytest
import typer
from cli_helpers import assert_clean_error
from typer.main import get_command
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.cli.bench import BENCHMARKS, bench_app, bench_command


def test_every_benchmark_module_registers_its_command() -> None:
    bench = get_command(app).commands["bench"]  # type: ignore[attr-defined]
    assert set(bench.commands) >= set(BENCHMARKS) == {"impliret", "metaqa", "trecdl", "stark"}
    for name in BENCHMARKS:
        opts = {o for p in bench.commands[name].params for o in getattr(p, "opts", [])}
        assert {"--device", "--precision"} <= opts, name


def test_a_new_benchmark_is_one_decorated_function(monkeypatch: pytest.MonkeyPatch) -> None:
    from skbsearch.core.errors import InputError

    monkeypatch.setattr(bench_app, "registered_commands", list(bench_app.registered_commands))
    seen: list[int] = []

    @bench_command("toy", help="A toy benchmark.")
    def toy(n: int = typer.Option(1, "--n"), quiet: bool = typer.Option(False, "--quiet")) -> None:
        if n < 0:
            raise InputError("n must be >= 0", field="--n")
        seen.append(n)

    root = typer.Typer(add_completion=False)
    root.add_typer(bench_app, name="bench")
    runner = CliRunner()
    assert runner.invoke(root, ["bench", "toy", "--n", "3"]).exit_code == 0 and seen == [3]
    assert_clean_error(runner.invoke(root, ["bench", "toy", "--n", "-1"]), "--n", "n must be >= 0")
    help_text = runner.invoke(root, ["bench", "toy", "--help"]).output
    assert "A toy benchmark." in help_text and "--device" in help_text


@pytest.mark.parametrize("args", [["impliret", "--data", "d"], ["trecdl", "--data", "d"],
                                  ["metaqa", "--data", "d"], ["stark", "--skb", "s", "--qa", "q"]])
def test_every_bench_command_refuses_an_unknown_device_first(
        args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from cli_helpers import invoke

    from skbsearch.core.devices import DEVICE_ENV

    monkeypatch.setenv(DEVICE_ENV, "auto")  # restored after the test
    assert_clean_error(invoke("bench", *args, "--device", "nosuch"), "device", "nosuch")
