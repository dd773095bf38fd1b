"""`skb env` (cli/env.py): what a bug report needs: versions, threads, extras installed (and
what each lacks), devices seen, as JSON and as a table."""

from __future__ import annotations

import json
import os
import sys

from cli_helpers import invoke
from typer.testing import CliRunner

from skbsearch.cli.env import KEY_PACKAGES, _requirement_name, _version, env_report, extras
from skbsearch.core import devices

HAS_CUDA = bool(devices.cuda_devices())


def test_env_command_json() -> None:
    from skbsearch.cli import app

    res = CliRunner().invoke(app, ["env", "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["python"] == sys.version.split()[0]
    assert report["packages"]["numpy"] and report["threads"]["cpus"] == os.cpu_count()
    assert "dense" in report["extras"]
    assert report["devices"]["default_device"] == ("cuda:0" if HAS_CUDA else "cpu")
    assert len(report["devices"]["gpus"]) == len(devices.cuda_devices())


def test_requirement_names_and_extras_list_what_is_missing() -> None:
    assert [_requirement_name(r) for r in ("torch>=2.1", "faiss-cpu ; sys_platform != 'win32'",
                                           "bm25s[core]==0.2", "ray (>=2)", " spacy~=3.7")] == [
        "torch", "faiss-cpu", "bm25s", "ray", "spacy"]
    found = extras()
    assert {"dense", "server", "gnn"} <= set(found) and not {"all", "test"} & set(found)
    assert all(_version(p) is None for missing in found.values() for p in missing)
    server = ("fastapi", "uvicorn", "httpx")
    assert (found["server"] == []) == all(_version(p) for p in server)


def test_the_report_and_its_table(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.setenv("SKBSEARCH_DEVICE", "nosuch")  # a bad default is reported, not raised
    report = env_report()
    assert set(report["packages"]) == set(KEY_PACKAGES) and report["threads"]["OMP_NUM_THREADS"] == "3"
    assert report["extras"]["server"] == ("installed" if not extras()["server"]
                                          else "missing " + ", ".join(extras()["server"]))
    if "torch_cuda" in report["devices"]:
        assert report["devices"]["default_device"].startswith("invalid (")
    monkeypatch.delenv("SKBSEARCH_DEVICE")
    r = invoke("env")
    assert r.exit_code == 0, r.output
    assert "skb env" in r.output and "threads: OMP_NUM_THREADS" in r.output
    assert "extra [server]" in r.output and "default device" in r.output
