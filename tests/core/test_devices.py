"""The one device setting (skbsearch.core.devices): auto, explicit, bad names, the environment
default, the one-line CLI error, stage parameters and the device records in results and
index manifests. Runs on the CPU (a GPU machine takes the cuda branches)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skbsearch.core import devices
from skbsearch.core.devices import DEVICE_ENV, PRECISION_ENV, DeviceSpec, resolve
from skbsearch.core.errors import InputError

HAS_CUDA = bool(devices.cuda_devices())


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DEVICE_ENV, raising=False)
    monkeypatch.delenv(PRECISION_ENV, raising=False)


def test_auto_is_cuda_when_seen_else_cpu() -> None:
    spec = resolve()
    assert spec.device == ("cuda:0" if HAS_CUDA else "cpu")
    assert spec.precision == ("fp16" if HAS_CUDA else "fp32")
    assert resolve("auto") == spec


def test_explicit_cpu_and_precisions() -> None:
    assert resolve("cpu") == DeviceSpec("cpu", "fp32")
    assert resolve("CPU", "bf16") == DeviceSpec("cpu", "bf16")
    assert resolve("cpu").dtype_name == "float32"
    with pytest.raises(InputError, match="fp16 needs a GPU"):
        resolve("cpu", "fp16")
    with pytest.raises(InputError, match="unknown precision 'fp8'"):
        resolve("cpu", "fp8")


@pytest.mark.parametrize("name", ["tpu", "cuda:x", "gpu", "cuda:-1", "mps"])
def test_unknown_names_list_the_devices_seen(name: str) -> None:
    with pytest.raises(InputError) as e:
        resolve(name)
    msg = str(e.value)
    assert f"unknown device {name!r}" in msg and "devices seen: cpu" in msg
    assert "\n" not in msg


def test_cuda_beyond_the_devices_seen() -> None:
    with pytest.raises(InputError) as e:
        resolve("cuda:7")
    assert "'cuda:7' is not available" in str(e.value) and "devices seen: cpu" in str(e.value)
    if not HAS_CUDA:
        with pytest.raises(InputError, match="torch sees no CUDA GPU"):
            resolve("cuda")


def test_environment_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEVICE_ENV, "cpu")
    monkeypatch.setenv(PRECISION_ENV, "bf16")
    assert resolve() == DeviceSpec("cpu", "bf16")
    assert resolve(None, "fp32").precision == "fp32"  # an explicit value wins
    monkeypatch.setenv(DEVICE_ENV, "tpu")
    with pytest.raises(InputError, match="unknown device 'tpu'"):
        resolve()


def test_default_device_context_restores(monkeypatch: pytest.MonkeyPatch) -> None:
    with devices.default_device("cpu", "bf16"):
        assert os.environ[DEVICE_ENV] == "cpu" and resolve().precision == "bf16"
    assert DEVICE_ENV not in os.environ and PRECISION_ENV not in os.environ


def test_records() -> None:
    rec = DeviceSpec("cpu", "bf16").record()
    assert rec["device"] == "cpu" and rec["dtype"] == "bfloat16" and rec["gpu"] is None
    assert devices.cpu_record() == {"device": "cpu", "dtype": "float32", "gpu": None, "torch": None}


def test_core_imports_devices_without_torch() -> None:
    code = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] == 'torch':
            raise ImportError('No module named torch')
sys.meta_path.insert(0, Block())
from skbsearch.core.devices import resolve, devices_seen
from skbsearch.core.errors import InputError
print(resolve().device, devices_seen())
try:
    resolve('cuda')
except InputError as e:
    print(e)
"""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    env.pop(DEVICE_ENV, None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "cpu ['cpu']"
    assert "torch is not installed" in out.stdout and "devices seen: cpu" in out.stdout


# ---------------------------------------------------------------------- CLI
def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    return subprocess.run([sys.executable, "-c", "from skbsearch.cli import main; main()", *args],
                          capture_output=True, text=True, env=env)


@pytest.mark.skipif(HAS_CUDA, reason="a machine with a GPU has cuda:0")
def test_index_on_a_missing_gpu_is_a_one_line_error(tmp_path: Path) -> None:
    out = _cli("index", str(tmp_path), "--kind", "dense", "--device", "cuda:0")
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr
    assert "'cuda:0' is not available" in lines[0] and "devices seen: cpu" in lines[0]


@pytest.mark.parametrize("cmd", [["index", "SKB"], ["run", "SKB", "--queries", "q",
                                                    "--pipeline", "bm25", "--save-run", "r"],
                                 ["train", "cross-encoder", "--data", "x", "--out", "o"],
                                 ["bench", "trecdl", "--data", "d"]])
def test_bad_device_names_on_commands(cmd: list[str], tmp_path: Path) -> None:
    args = [str(tmp_path) if a == "SKB" else a for a in cmd]
    out = _cli(*args, "--device", "tpu")
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().count("\n") == 0 and "unknown device 'tpu'" in out.stderr


MODEL_STAGES = ("dense", "multivector", "cross-encoder", "cross-encoder-ft", "gnn", "gnn-row")


def test_stages_json_shows_device_and_precision() -> None:
    from skbsearch.cli import app

    res = CliRunner().invoke(app, ["stages", "--json"])
    assert res.exit_code == 0, res.output
    stages = {s["name"]: {p["name"] for p in s["params"]}
              for s in json.loads(res.stdout)["stages"]}
    for name in MODEL_STAGES:
        assert {"device", "precision"} <= stages[name], name
    assert "device" not in stages["bm25"]


def test_stage_device_params_are_checked_at_parse_time() -> None:
    from skbsearch.stages import pipeline

    p = pipeline("dense(device='CPU', precision='bf16')")
    assert p.params.device == "cpu" and p.params.precision == "bf16"
    assert repr(p) == "dense(device='cpu', precision='bf16')"
    assert repr(pipeline("dense(50)")) == "dense(k=50)"  # positional k unchanged
    with pytest.raises(InputError, match="unknown device 'tpu'"):
        pipeline("cross-encoder(model='m', device='tpu')")
    with pytest.raises(InputError, match="unknown precision"):
        pipeline("gnn(model='m', precision='int4')")


def test_benchmark_result_records_the_device(tmp_path: Path) -> None:
    from skbsearch.benchmarks.result import BenchmarkResult

    res = BenchmarkResult("x", {"a": 1}, {"m": 0.5})
    assert res.device["device"] in ("cpu", "cuda:0") and "dtype" in res.device
    path = tmp_path / "r.json"
    res.to_json(path)
    back = BenchmarkResult.from_json(path)
    assert back.device == res.device and json.loads(path.read_text())["device"] == res.device


def test_index_manifest_records_the_device(tmp_path: Path) -> None:
    from skbsearch.index.base import Manifest, read_manifest, write_manifest

    write_manifest(tmp_path, Manifest("bm25", 1, 3))
    assert read_manifest(tmp_path).built_on == devices.cpu_record()  # no model: the CPU
    rec = DeviceSpec("cpu", "bf16").record()
    write_manifest(tmp_path, Manifest("dense", 1, 3, built_on=rec))
    assert read_manifest(tmp_path).built_on == rec
