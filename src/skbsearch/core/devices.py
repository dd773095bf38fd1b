"""One device setting for every model: ``device`` and ``precision``, resolved once.

``device`` is ``auto`` (a CUDA GPU when torch sees one, else the CPU), ``cpu``, ``cuda``
(the first GPU) or ``cuda:N``; ``precision`` is ``fp32``, ``fp16`` or ``bf16`` (default
``fp32`` on the CPU, ``fp16`` on a GPU). Unset values come from ``$SKBSEARCH_DEVICE`` and
``$SKBSEARCH_PRECISION`` (the ``--device`` option of the commands sets the first), else
``auto``. A name that cannot be used (``tpu``, ``cuda:7``, ``cuda`` where torch sees no GPU,
``fp16`` on the CPU) raises a one-line :class:`~skbsearch.core.errors.InputError` that lists the
devices seen.

torch is imported only when a value needs it (``auto``, ``cuda``...), never at import, so the
core imports without the ``[dense]`` extra; without torch only the CPU is seen.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from skbsearch.core.errors import InputError

DEVICE_ENV = "SKBSEARCH_DEVICE"
PRECISION_ENV = "SKBSEARCH_PRECISION"
PRECISIONS = ("fp32", "fp16", "bf16")
_DTYPE_NAMES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}
_DEVICE_RE = re.compile(r"^(auto|cpu|cuda|cuda:\d+)$")
DEVICE_HELP = "auto | cpu | cuda | cuda:N (default: $SKBSEARCH_DEVICE, else auto: a GPU when torch sees one)"
PRECISION_HELP = "fp32 | fp16 | bf16 (default: fp32 on the CPU, fp16 on a GPU)"


def torch_or_none() -> Any | None:
    """torch if it is installed (imported on first need), else ``None``."""
    if "torch" in sys.modules:
        return sys.modules["torch"]
    try:
        if importlib.util.find_spec("torch") is None:
            return None
        import torch
    except ImportError:
        return None
    return torch


def cuda_devices() -> list[dict[str, Any]]:
    """The CUDA GPUs torch sees: ``[{"index", "name", "memory_gb", "capability"}]`` (looked
    up once per process: every search resolves its device)."""
    return [dict(d) for d in _cuda_devices()]


@functools.lru_cache(maxsize=1)
def _cuda_devices() -> tuple[dict[str, Any], ...]:
    torch = torch_or_none()
    if torch is None or not torch.cuda.is_available():
        return ()
    out = []
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        out.append({"index": i, "name": p.name, "memory_gb": round(p.total_memory / 2**30, 1),
                    "capability": f"{p.major}.{p.minor}"})
    return tuple(out)


def devices_seen() -> list[str]:
    """``["cpu", "cuda:0", ...]``: every device a model can run on here."""
    return ["cpu", *(f"cuda:{d['index']}" for d in cuda_devices())]


def check_device_name(device: str | None) -> str | None:
    """``device`` lower-cased if it is a device name (``auto``, ``cpu``, ``cuda``,
    ``cuda:N``) or ``None``; otherwise an :class:`InputError`. Needs no torch (parsing)."""
    if device is None:
        return None
    name = str(device).strip().lower()
    if not _DEVICE_RE.match(name):
        raise InputError(f"unknown device {device!r}; use auto, cpu, cuda or cuda:N "
                         f"(devices seen: {', '.join(devices_seen())})", field="device")
    return name


def check_precision_name(precision: str | None) -> str | None:
    """``precision`` lower-cased if it is ``fp32``, ``fp16``, ``bf16``, ``auto`` or ``None``."""
    if precision is None:
        return None
    name = str(precision).strip().lower()
    if name not in (*PRECISIONS, "auto"):
        raise InputError(f"unknown precision {precision!r}; use {', '.join(PRECISIONS)}",
                         field="precision")
    return name


def resolve_device(device: str | None = None) -> str:
    """The device to run on: ``"cpu"`` or ``"cuda:N"`` (see the module docstring)."""
    name = check_device_name(device or os.environ.get(DEVICE_ENV, "").strip() or "auto")
    assert name is not None
    if name == "cpu":
        return "cpu"
    gpus = cuda_devices()
    if name == "auto":
        return "cuda:0" if gpus else "cpu"
    index = int(name.partition(":")[2] or 0)
    if index >= len(gpus):
        why = ("torch is not installed (pip install 'skbsearch[dense]')" if torch_or_none() is None
               else "torch sees no CUDA GPU" if not gpus else f"torch sees {len(gpus)} GPU(s)")
        raise InputError(f"device {name!r} is not available: {why} (devices seen: "
                         f"{', '.join(devices_seen())})", field="device")
    return f"cuda:{index}"


def resolve_precision(precision: str | None, device: str) -> str:
    """``fp32``, ``fp16`` or ``bf16`` for a resolved ``device`` (``None``/``auto``: the
    device's default; ``fp16`` on the CPU and ``bf16`` on a GPU without it are refused)."""
    name = check_precision_name(precision or os.environ.get(PRECISION_ENV, "").strip() or None)
    on_gpu = device.startswith("cuda")
    if name in (None, "auto"):
        return "fp16" if on_gpu else "fp32"
    if name == "fp16" and not on_gpu:
        raise InputError("precision fp16 needs a GPU; on the CPU use fp32 (default) or bf16",
                         field="precision")
    if name == "bf16" and on_gpu:
        torch = torch_or_none()
        if torch is not None and not torch.cuda.is_bf16_supported():
            raise InputError(f"{device} does not support bf16; use fp16 or fp32",
                             field="precision")
    return name


@dataclass(frozen=True)
class DeviceSpec:
    """A resolved device and precision (see :func:`resolve`)."""

    device: str = "cpu"
    precision: str = "fp32"

    @property
    def is_cuda(self) -> bool:
        """Whether this runs on a CUDA GPU."""
        return self.device.startswith("cuda")

    @property
    def device_type(self) -> str:
        """``"cuda"`` or ``"cpu"`` (what ``torch.autocast`` takes)."""
        return "cuda" if self.is_cuda else "cpu"

    @property
    def dtype_name(self) -> str:
        """``float32``, ``float16`` or ``bfloat16``."""
        return _DTYPE_NAMES[self.precision]

    @property
    def dtype(self) -> Any:
        """The torch dtype of :attr:`precision`."""
        import torch

        return getattr(torch, self.dtype_name)

    def record(self) -> dict[str, Any]:
        """What result JSON and index manifests record: device, dtype, GPU name, torch."""
        torch = sys.modules.get("torch")
        gpu = None
        if self.is_cuda and torch is not None:
            gpu = torch.cuda.get_device_name(int(self.device.partition(":")[2] or 0))
        return {"device": self.device, "dtype": self.dtype_name, "gpu": gpu,
                "torch": getattr(torch, "__version__", None) if torch is not None else None}

    def autocast(self) -> Any:
        """``torch.autocast`` at :attr:`precision` (a no-op context at fp32)."""
        if self.precision == "fp32":
            return contextlib.nullcontext()
        import torch

        return torch.autocast(self.device_type, dtype=self.dtype)

    def grad_scaler(self) -> Any:
        """A ``GradScaler`` for fp16 training on a GPU (``None`` otherwise: bf16 and fp32
        need no loss scaling)."""
        if self.precision != "fp16" or not self.is_cuda:
            return None
        import torch

        return torch.amp.GradScaler("cuda")


def cpu_record() -> dict[str, Any]:
    """The device record of work that ran no model (BM25, graph indexes): the CPU."""
    return {"device": "cpu", "dtype": "float32", "gpu": None, "torch": None}


def resolve(device: str | None = None, precision: str | None = None) -> DeviceSpec:
    """A :class:`DeviceSpec` from user values (``None``: the environment default, else auto)."""
    dev = resolve_device(device)
    return DeviceSpec(dev, resolve_precision(precision, dev))


def set_default_device(device: str | None, precision: str | None = None) -> DeviceSpec | None:
    """Check ``device`` (and ``precision``) and make them this process's default (the
    ``--device`` option of the commands); ``None`` leaves the default as it is."""
    if device is None and precision is None:
        return None
    spec = resolve(device, precision)
    if device is not None:
        os.environ[DEVICE_ENV] = spec.device
    if precision is not None:
        os.environ[PRECISION_ENV] = spec.precision
    return spec


def current_record() -> dict[str, Any]:
    """The device record of this process for a result file: the default device if torch
    was imported (models may have run), else the CPU (nothing ran on a GPU)."""
    if "torch" not in sys.modules:
        return cpu_record()
    try:
        return resolve().record()
    except InputError:
        return DeviceSpec().record()


@contextlib.contextmanager
def default_device(device: str | None, precision: str | None = None) -> Iterator[None]:
    """Within the block, ``device``/``precision`` are the process default (then restored)."""
    old = {k: os.environ.get(k) for k in (DEVICE_ENV, PRECISION_ENV)}
    try:
        set_default_device(device, precision)
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
