"""The stage registry and the builder from a spec's syntax tree to stage objects."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.operators import Cutoff, Pipeline
from skbsearch.stages.base import SpecStage, format_value
from skbsearch.stages.grammar import Call, Chain, Cut, Fuse, Word, parse_spec

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


def build(node: Any, context: Any = None) -> Any:
    """Turn a parsed spec tree into stages (bound to ``context`` when given)."""
    if isinstance(node, Chain):
        return Pipeline(*(build(p, context) for p in node.parts))
    if isinstance(node, Cut):
        return Pipeline(build(node.inner, context), Cutoff(node.k))
    if isinstance(node, Fuse):
        return get_stage("fuse").from_children([build(p, context) for p in node.parts],
                                              context=context)
    if isinstance(node, Word):
        node = Call(node.text)
    if isinstance(node, Call):
        cls = get_stage(node.name)
        if cls.category == "fusion":
            kids = [build(a, context) for a in node.args]
            kwargs = {k: _plain(v, node.name, k) for k, v in node.kwargs.items()}
            return cls.from_children(kids, context=context, **kwargs)
        kwargs = {k: _plain(v, node.name, k) for k, v in node.kwargs.items()}
        if node.args:
            fields = cls.param_fields()
            if len(node.args) > len(fields):
                raise InputError(f"stage {node.name!r} takes at most {len(fields)} positional "
                                 "value(s)", field="pipeline")
            for f, v in zip(fields, node.args, strict=False):
                if f.name in kwargs:
                    raise InputError(f"stage {node.name!r}: parameter {f.name} given twice",
                                     field=f.name)
                kwargs[f.name] = _plain(v, node.name, f.name)
        return cls(context, **kwargs)
    raise InputError(f"cannot build a stage from {node!r}", field="pipeline")


def _plain(value: Any, stage: str, param: str) -> Any:
    if isinstance(value, Word):
        return value.text
    if isinstance(value, list):
        return [_plain(v, stage, param) for v in value]
    if isinstance(value, (Call, Chain, Fuse, Cut)):
        raise InputError(f"stage {stage!r}: parameter {param} takes a value, not a stage",
                         field=param)
    return value


def parse(spec: str, context: Any = None) -> Any:
    """Parse a pipeline spec and build its stages (see :mod:`skbsearch.stages.grammar`)."""
    return build(parse_spec(spec), context)
