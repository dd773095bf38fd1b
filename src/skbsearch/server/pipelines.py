"""Pipelines over HTTP: named pipelines, spec policy, and a per-snapshot cache.

A request names a pipeline (``"bm25"``, one of the server's named pipelines) or gives a
spec in the pipeline language (:mod:`skbsearch.stages`); the old ``retriever`` field is an
alias for a one-stage pipeline. Specs are parsed (never evaluated) by the stage registry,
so only registered stages and parameters get through.

A client must not make the server read files it chooses: by default a free spec is
refused when a stage's parameter names a file, a model or a URL (``run('x.trec')``,
``cross-encoder(model=…)``, ``gnn(model=…)``, ``llm``, ``dense(encoder=…)``,
``bm25(index=…)``); the
server's named pipelines (``skb serve --pipeline NAME=SPEC``) may, and
``--allow-spec-files`` lifts the rule for every spec. Specs are also bounded (length,
number of stages, size of numeric parameters) so one request cannot ask for unbounded work.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.operators import Pipeline
from skbsearch.retrieve.filters import NodeFilter
from skbsearch.retrieve.stage import IndexRetriever
from skbsearch.server.budget import check_sizes
from skbsearch.server.errors import PipelineRefused, is_foreign
from skbsearch.stages import SpecStage, available_stages, bind, get_stage, parse
from skbsearch.stages.context import StageContext
from skbsearch.stages.fusion import FilterStage

#: Parameter names that name something to load (a file, a directory, a model, a URL).
FILE_PARAM_NAMES = frozenset({"path", "file", "dir", "directory", "index", "model", "encoder", "url"})
#: Words in a parameter's help text that mark it as naming something to load.
FILE_HELP_WORDS = ("path", "directory", "file", "url")
#: Largest absolute value of a numeric stage parameter in a client's spec.
MAX_PARAM_VALUE = 1_000_000
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def parse_named(items: Sequence[str]) -> dict[str, str]:
    """``NAME=SPEC`` options (``skb serve --pipeline``) as ``{name: spec}``; specs are checked.

    Raises:
        InputError: a malformed item, a bad name, or a spec that does not parse.
    """
    out: dict[str, str] = {}
    for item in items:
        name, sep, spec = item.partition("=")
        name, spec = name.strip(), spec.strip()
        if not sep or not spec:
            raise InputError(f"--pipeline {item!r}: write NAME=SPEC, e.g. "
                             "--pipeline fused='(bm25 + graph) % 20'", field="pipeline")
        if not NAME_RE.match(name):
            raise InputError(f"--pipeline {item!r}: a name is letters, digits, '_', '.', '-' "
                             "(at most 64)", field="pipeline")
        parse(spec)  # fails early with the registry's message
        out[name] = spec
    return out


def default_pipelines(num_edges: int) -> dict[str, str]:
    """The pipelines every server offers: BM25, and graph-aware retrieval when there are edges."""
    out = {"bm25": "bm25"}
    if num_edges:
        out["graph"] = "graph"
        out["bm25+graph"] = "bm25 + graph"
    return out


def file_params(stage_cls: type) -> list[str]:
    """Names of a stage's parameters that name a file, a directory, a model or a URL."""
    out = []
    for f in stage_cls.param_fields():
        help_text = str(f.metadata.get("help", "")).lower()
        if f.name in FILE_PARAM_NAMES or any(w in help_text for w in FILE_HELP_WORDS):
            out.append(f.name)
    return out


def iter_stages(obj: Any) -> Iterator[Any]:
    """Every registered stage in a pipeline (fusion children included), in spec order."""
    parts = obj.stages if isinstance(obj, Pipeline) else [obj]
    for p in parts:
        if isinstance(p, SpecStage):
            yield p
            for c in getattr(p, "children", ()) or ():
                yield from iter_stages(c)


def check_spec(obj: Any, *, allow_files: bool, max_stages: int) -> None:
    """Refuse a client's pipeline that loads files or asks for unbounded work.

    Raises:
        PipelineRefused: a stage whose parameter names a file/model/URL (unless
            ``allow_files``), more than ``max_stages`` stages, or a numeric parameter
            that is not finite or exceeds :data:`MAX_PARAM_VALUE`.
    """
    stages = list(iter_stages(obj))
    if len(stages) > max_stages:
        raise PipelineRefused(f"the pipeline has {len(stages)} stages; the limit is {max_stages}")
    for st in stages:
        for f in dataclasses.fields(st.params):
            _check_value(st.name, f.name, getattr(st.params, f.name))
        if allow_files:
            continue
        for name in file_params(type(st)):
            if getattr(st.params, name) is not None:
                raise PipelineRefused(
                    f"stage {st.name!r} loads a file, model or URL ({name}); a client's spec "
                    "may not name one. Use one of the server's named pipelines (GET "
                    "/pipelines), or start the server with --allow-spec-files")


def _check_value(stage: str, param: str, value: Any) -> None:
    values = value if isinstance(value, (list, tuple)) else [value]
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        if not math.isfinite(v) or abs(v) > MAX_PARAM_VALUE:
            raise PipelineRefused(f"stage {stage!r}: parameter {param} must be a finite number "
                                  f"of at most {MAX_PARAM_VALUE:,}", field=param)


class SnapshotContext(StageContext):
    """A :class:`StageContext` whose indexes come from one server snapshot.

    Indexes are the snapshot's (loaded once, checked to belong to its build); a missing
    index is an error for the client (404 with the ``skb index`` command), never built
    on a request.
    """

    def __init__(self, kb: Any, load_index: Callable[[str], Any]) -> None:
        super().__init__(kb, notify=lambda _msg: None)
        self._load = load_index

    def _load_index(self, kind: str) -> Any:
        return self._load(kind)


@dataclasses.dataclass(frozen=True)
class PipelineRequest:
    """What a request asked for: a pipeline (name or spec) or a retriever alias, and filters."""

    pipeline: str | None
    retriever: str | None = None
    types: tuple[str, ...] = ()
    where: str | None = None
    k: int = 10

    def key(self) -> tuple:
        """The cache key (the alias's depth depends on ``k``; a spec's does not)."""
        if self.pipeline is not None:
            return ("spec", self.pipeline, self.types, self.where)
        return ("alias", self.retriever, self.types, self.where, self.k)


class PipelinePolicy:
    """The server's named pipelines and the rules for clients' specs.

    Args:
        named: the operator's ``{name: spec}`` (trusted: they may load files).
        allow_files: let clients' specs name files, models and URLs too.
        max_stages: most registered stages in one client pipeline.
        max_candidates: the size cap of a client's spec (``server.budget``).
        max_k: the largest ``k`` of a request (the size cap is never below it).
    """

    def __init__(self, named: Mapping[str, str] | None = None, *, allow_files: bool = False,
                 max_stages: int = 16, max_candidates: int = 10_000, max_k: int = 1_000) -> None:
        self.named = dict(named or {})
        self.allow_files = allow_files
        self.max_stages = max_stages
        self.max_candidates = max_candidates
        self.max_k = max_k
        self._trusted_specs = {repr(parse(s)) for s in self.named.values()}

    def pipelines(self, num_edges: int) -> dict[str, str]:
        """``{name: spec}`` offered by the server: the defaults, then the operator's."""
        return {**default_pipelines(num_edges), **self.named}

    def build(self, req: PipelineRequest, ctx: StageContext) -> Any:
        """The bound pipeline for a request.

        Raises:
            PipelineRefused: an unknown stage, parameter or retriever; a spec that does
                not parse or breaks :func:`check_spec`.
        """
        if req.pipeline is None:
            obj = self._alias(req)
            trusted = False
        else:
            named = self.pipelines(ctx.kb.num_edges)
            spec = named.get(req.pipeline, req.pipeline)
            obj = _refused_on_error(lambda: parse(spec))
            trusted = req.pipeline in named or repr(obj) in self._trusted_specs
            _push_filter(obj, req.types, req.where)
        check_spec(obj, allow_files=self.allow_files or trusted, max_stages=self.max_stages)
        if not trusted:  # the operator's named pipelines may ask for what they like
            check_sizes(iter_stages(obj), max_candidates=self.max_candidates,
                        num_nodes=ctx.kb.num_nodes, max_k=self.max_k)
        if (req.types or req.where) and not _filters_itself(obj, req):
            obj = Pipeline(obj, FilterStage(None, types=req.types, where=req.where))
        return bind(obj, ctx)

    @staticmethod
    def _alias(req: PipelineRequest) -> Any:
        """``retriever: NAME`` (the old field): one retriever stage, ``k`` and filters inside."""
        name = req.retriever or "bm25"
        cls = _refused_on_error(lambda: get_stage(name))
        if cls.category != "retriever":
            valid = [n for n in available_stages() if get_stage(n).category == "retriever"]
            raise PipelineRefused(f"retriever {name!r} is not a retriever; retrievers: "
                                  f"{', '.join(valid)} (use 'pipeline' for other stages)",
                                  field="retriever")
        params = {f.name for f in cls.param_fields()}
        kwargs: dict[str, Any] = {"k": req.k} if "k" in params else {}
        if req.types and "types" in params:
            kwargs["types"] = req.types
        if req.where and "where" in params:
            kwargs["where"] = req.where
        return _refused_on_error(lambda: cls(None, **kwargs))


def _refused_on_error(fn: Callable[[], Any]) -> Any:
    """``fn()``, with a spec error re-raised as :class:`PipelineRefused` (lists the stages)."""
    try:
        return fn()
    except PipelineRefused:
        raise
    except InputError as e:
        if is_foreign(e) or e.file is not None:
            raise  # the error handler shows a generic message for it
        raise PipelineRefused(e.reason, field=e.field or "pipeline") from None


def _filters_itself(obj: Any, req: PipelineRequest) -> bool:
    """Whether the pipeline is one index retriever whose hard filter is the request's: its
    results pass the filter already, and a filter stage after it would evaluate the
    ``where`` over every node a second time (a costly predicate's whole cost again)."""
    if not isinstance(obj, IndexRetriever):
        return False
    return NodeFilter(obj.params.types, obj.params.where) == NodeFilter(req.types, req.where)


def _push_filter(obj: Any, types: tuple[str, ...], where: str | None) -> None:
    """Let the first retriever apply the request's filter itself (so k results can pass it).

    Only a first stage with ``types``/``where`` parameters left at their defaults is
    changed; the request's filter is applied after the pipeline too, unless the pipeline is
    that retriever alone (:func:`_filters_itself`).
    """
    if not (types or where):
        return
    first = obj.stages[0] if isinstance(obj, Pipeline) else obj
    params = getattr(first, "params", None)
    if params is None or not dataclasses.is_dataclass(params):
        return
    names = {f.name for f in dataclasses.fields(params)}
    if {"types", "where"} <= names and not params.types and params.where is None:
        params.types = tuple(types)
        params.where = where
