"""The builder from a spec's syntax tree (:mod:`.grammar`) to registered stage objects."""

from __future__ import annotations

from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.operators import Cutoff, Pipeline
from skbsearch.core.registry import get_stage
from skbsearch.core.stage import SpecStage
from skbsearch.stages.fusion import FusionStage
from skbsearch.stages.grammar import Call, Chain, Cut, Fuse, Word, parse_spec


def build(node: Any, context: Any = None) -> Any:
    """Turn a parsed spec tree into stages (bound to ``context`` when given)."""
    if isinstance(node, Chain):
        return Pipeline(*(build(p, context) for p in node.parts))
    if isinstance(node, Cut):
        return Pipeline(build(node.inner, context), Cutoff(node.k))
    if isinstance(node, Fuse):
        return _fusion(get_stage("fuse")).from_children([build(p, context) for p in node.parts],
                                                        context=context)
    if isinstance(node, Word):
        node = Call(node.text)
    if isinstance(node, Call):
        cls = get_stage(node.name)
        if cls.category == "fusion":
            kids = [build(a, context) for a in node.args]
            kwargs = {k: _plain(v, node.name, k) for k, v in node.kwargs.items()}
            return _fusion(cls).from_children(kids, context=context, **kwargs)
        kwargs = {k: _plain(v, node.name, k) for k, v in node.kwargs.items()}
        cls.check_param_names(kwargs)  # constructor options are for Python callers, never spec text
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


def _fusion(cls: type[SpecStage]) -> type[FusionStage]:
    """A registered stage of the fusion category as the fusion class it is."""
    if not issubclass(cls, FusionStage):
        raise InputError(f"stage {cls.name!r} is not a fusion of stages", field="pipeline")
    return cls


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
