"""Mixed-precision training steps on any device (:mod:`skbsearch.core.devices`).

:class:`AmpTrainer` runs the forward pass under ``torch.autocast`` at the device's
precision (fp16 or bf16; nothing at fp32) and the backward pass and optimiser step with a
``GradScaler`` for fp16 on a GPU (bf16 and fp32 need no loss scaling). At fp32 it is the
plain ``loss.backward(); clip; opt.step()`` loop, so CPU training is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from skbsearch.core.devices import DeviceSpec, resolve


class AmpTrainer:
    """Autocast and a scaled optimiser step for one device.

    Args:
        device, precision: :func:`skbsearch.core.devices.resolve` values (``None``: defaults).
        clip: clip the gradient norm of ``params`` to this (``None``: no clipping).
    """

    def __init__(self, device: str | DeviceSpec | None = None, precision: str | None = None,
                 clip: float | None = None) -> None:
        self.spec = device if isinstance(device, DeviceSpec) else resolve(device, precision)
        self.scaler = self.spec.grad_scaler()
        self.clip = clip

    def autocast(self) -> Any:
        """The forward pass's context (autocast at fp16/bf16)."""
        return self.spec.autocast()

    def step(self, loss: Any, opt: Any, params: Iterable[Any] = ()) -> None:
        """``zero_grad``, backward, (unscale and) clip, optimiser step."""
        import torch

        opt.zero_grad()
        if self.scaler is None:
            loss.backward()
            if self.clip is not None:
                torch.nn.utils.clip_grad_norm_(list(params), self.clip)
            opt.step()
            return
        self.scaler.scale(loss).backward()
        if self.clip is not None:
            self.scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(list(params), self.clip)
        self.scaler.step(opt)
        self.scaler.update()

    def record(self) -> dict[str, Any]:
        """The device record for a model's training info."""
        return self.spec.record()
