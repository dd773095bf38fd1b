"""The registry of stage classes: name (and aliases) -> :class:`~skbsearch.core.stage.SpecStage`.

A stage registers itself with :func:`register_stage` where it is defined (a retriever in
``retrieve/*``, a re-ranker in ``rerank/*``, an operator in ``stages/*``); importing
:mod:`skbsearch.stages` imports every such module, so the list is complete from there.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.stage import SpecStage, format_value

_REGISTRY: dict[str, type[SpecStage]] = {}
_ALIASES: dict[str, str] = {}


def register_stage(cls: type[SpecStage]) -> type[SpecStage]:
    """Class decorator: add a :class:`SpecStage` subclass under its ``name`` and aliases."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    _REGISTRY[cls.name] = cls
    for alias in cls.aliases:
        _ALIASES[alias] = cls.name
    return cls


def available_stages() -> list[str]:
    """Registered stage names (aliases not included)."""
    return sorted(_REGISTRY)


def get_stage(name: str) -> type[SpecStage]:
    """The stage class registered as ``name`` (or an alias); unknown names list the valid ones."""
    key = _ALIASES.get(name, name)
    try:
        return _REGISTRY[key]
    except KeyError:
        raise InputError(f"unknown stage {name!r}; registered stages: "
                         f"{', '.join(available_stages())}", field="pipeline") from None


def describe(name: str) -> dict[str, Any]:
    """Name, category, doc, aliases and typed parameters of a stage (for ``skb stages``)."""
    cls = get_stage(name)
    hints = typing.get_type_hints(cls.Params)
    params = []
    for f in cls.param_fields():
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else None)
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        hint = hints[f.name]
        params.append({"name": f.name, "type": _type_name(hint),
                       "default": None if required else default,
                       "default_spec": None if required else format_value(default),
                       "required": required, "help": f.metadata.get("help", "")})
    doc = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
    return {"name": cls.name, "category": cls.category, "doc": doc, "aliases": list(cls.aliases),
            "trainable": cls.trainable, "params": params}


def _type_name(hint: Any) -> str:
    if isinstance(hint, type):
        return hint.__name__
    return str(hint).replace("typing.", "")
