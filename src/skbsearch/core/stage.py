"""The registered-stage protocol: typed parameters, a spec ``repr``, lazy setup against a context.

A registered stage is a subclass of :class:`SpecStage` with a ``name``, a one-line doc
(the class docstring's first line) and a ``Params`` dataclass. Constructing it only
checks the parameters; what it needs (indexes, models) is prepared on first use from the
:class:`Context` it is bound to (``skbsearch.stages.context.StageContext``: the SKB and its
indexes), so parsing a spec never loads a model. The retrievers and re-rankers of layer L2
*are* such stages (one class each, in ``retrieve/*`` and ``rerank/*``); this module is L0
so that they can subclass it without importing the stage package.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol

from skbsearch.core.devices import (
    DEVICE_HELP,
    PRECISION_HELP,
    check_device_name,
    check_precision_name,
)
from skbsearch.core.errors import InputError
from skbsearch.core.lazy import load_object
from skbsearch.core.operators import Pipeline, StageBase
from skbsearch.core.types import Qrels, Query, Run, as_query


class Context(Protocol):
    """What a stage is set up against (``skbsearch.stages.context.StageContext``)."""

    kb: Any
    notify: Any

    def index(self, kind: str) -> Any:
        """The loaded index of ``kind``."""

    def index_at(self, kind: str, path: str) -> Any:
        """The ``kind`` index saved in the directory ``path`` (loaded once, checked)."""

    def shared(self, key: str, factory: Any) -> Any:
        """A value built once per context and shared by its stages."""

    def doc_text(self, doc_id: str) -> str:
        """The rendered document of a node."""

    def resolve_path(self, value: str) -> Path:
        """A user-given file path."""


def is_stage_context(value: Any) -> bool:
    """A stage context (the SKB and its indexes), as opposed to a resource given directly
    to a stage's constructor (an index, documents, a model)."""
    return callable(getattr(value, "index", None)) and hasattr(value, "kb")


def format_value(value: Any) -> str:
    """A parameter value as the spec language writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def _coerce(stage: str, name: str, hint: Any, value: Any) -> Any:
    """Check/convert a parsed value to the parameter's annotated type."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any:
        return value
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        if value is None and type(None) in args:
            return None
        errors = []
        for a in args:
            if a is type(None):
                continue
            try:
                return _coerce(stage, name, a, value)
            except InputError as e:
                errors.append(e)
        raise errors[0] if errors else InputError(f"{stage}: bad value for {name}", field=name)
    if origin in (tuple, list) or hint in (tuple, list):
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if not isinstance(value, (list, tuple)):
            value = [value]
        inner = args[0] if args else Any
        return tuple(_coerce(stage, name, inner, v) for v in value)
    if hint is bool:
        if isinstance(value, bool):
            return value
    elif hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
    elif hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif hint is str:
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
    else:
        return value
    raise InputError(f"{stage}: parameter {name} takes {getattr(hint, '__name__', hint)}, "
                     f"got {format_value(value)}", field=name)


def device_param() -> Any:
    """The ``device`` parameter of a model stage (a dataclass field; ``None``: the default)."""
    return dataclasses.field(default=None, metadata={"help": DEVICE_HELP})


def precision_param() -> Any:
    """The ``precision`` parameter of a model stage (a dataclass field)."""
    return dataclasses.field(default=None, metadata={"help": PRECISION_HELP})


def save_dir_param() -> Any:
    """The ``save_dir`` parameter of a fitted stage (a dataclass field)."""
    return dataclasses.field(default=None, metadata={
        "help": "directory: write the model of the n-th fit to SAVE_DIR/fold<n>"})


def check_device_params(params: Any) -> None:
    """Check the names of ``params.device`` and ``params.precision`` (no torch needed: a
    device that is not there is refused when the stage is built); :meth:`SpecStage.make_params`
    does it for every stage whose parameters have both."""
    params.device = check_device_name(params.device)
    params.precision = check_precision_name(params.precision)


class SpecStage(StageBase):
    """Base class of every registered stage (see the module docstring).

    Subclasses set ``name`` and ``Params`` and implement :meth:`build`: a retriever or
    re-ranker that is its own working object takes what it needs from the context and
    returns itself (and implements ``__call__``); an operator may return another callable.
    Trainable ones also implement :meth:`fit` (:class:`FittedStage`).
    """

    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    category: ClassVar[str] = "retriever"
    trainable: ClassVar[bool] = False
    #: What one query costs, for services that queue work by cost: ``"light"`` (about a
    #: BM25 top-k), ``"normal"`` or ``"heavy"`` (models, indexes built in memory);
    #: ``None``: by category (fusions, filters and inputs light, re-rankers heavy).
    cost: ClassVar[str | None] = None

    @dataclasses.dataclass
    class Params:
        """No parameters."""

    def __init__(self, context: Context | None = None, **params: Any) -> None:
        self.params = self.make_params(**params)
        self.context = context
        self._built: Any = None

    # -------------------------------------------------------------- parameters
    @classmethod
    def param_fields(cls) -> list[dataclasses.Field]:
        """The typed parameters of this stage."""
        return list(dataclasses.fields(cls.Params))

    @classmethod
    def check_param_names(cls, params: Any) -> None:
        """Refuse a name that is not a declared parameter (the error lists the valid ones)."""
        names = [f.name for f in cls.param_fields()]
        for key in params:
            if key.replace("-", "_") not in names:
                raise InputError(f"stage {cls.name!r} has no parameter {key!r}; its parameters: "
                                 f"{', '.join(names) or 'none'}", field=key)

    @classmethod
    def make_params(cls, **params: Any) -> Any:
        """Validate and convert keyword parameters (unknown names list the valid ones)."""
        hints = typing.get_type_hints(cls.Params)
        cls.check_param_names(params)
        fields = {f.name: f for f in cls.param_fields()}
        out = {}
        for key, value in params.items():
            norm = key.replace("-", "_")
            out[norm] = _coerce(cls.name, norm, hints[norm], value)
        try:
            p = cls.Params(**out)
        except TypeError as e:
            missing = [f.name for f in fields.values() if f.name not in out
                       and f.default is dataclasses.MISSING
                       and f.default_factory is dataclasses.MISSING]
            raise InputError(f"stage {cls.name!r} needs parameter(s) {', '.join(missing)}",
                             field=missing[0] if missing else None) from e
        if {"device", "precision"} <= fields.keys():
            check_device_params(p)  # every model stage's, here (its own check need not)
        check = getattr(p, "check", None)
        if check is not None:
            check()
        return p

    def non_default_params(self) -> dict[str, Any]:
        """Parameters that differ from their defaults, in declaration order."""
        out = {}
        for f in self.param_fields():
            v = getattr(self.params, f.name)
            default = f.default if f.default is not dataclasses.MISSING else (
                f.default_factory() if f.default_factory is not dataclasses.MISSING else object())
            if v != default:
                out[f.name] = v
        return out

    def __repr__(self) -> str:
        p = self.non_default_params()
        if not p:
            return self.name
        return f"{self.name}(" + ", ".join(f"{k}={format_value(v)}" for k, v in p.items()) + ")"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.params == other.params

    __hash__ = None  # type: ignore[assignment]  # None marks it unhashable (equal by value); mypy expects a method

    # -------------------------------------------------------------- running
    def bind(self, context: Context) -> SpecStage:
        """Attach a context (the SKB and its indexes) unless one is bound already."""
        if self.context is None:  # (a stage built already, over resources given to it, keeps them)
            self.context = context
        return self

    def require_context(self) -> Context:
        """The bound context, or a clear error saying how to bind one."""
        if self.context is None:
            raise InputError(f"stage {self!r} is not bound to an SKB: use "
                             "skb.SKB.load(path).pipeline(stage) or pipeline(spec, kb)",
                             field="kb")
        return self.context

    def build(self, context: Context) -> Any:  # pragma: no cover - abstract
        """The working stage (a callable ``(queries, run) -> Run``) for ``context``."""
        raise NotImplementedError

    @property
    def inner(self) -> Any:
        """The built working stage (built on first access). A stage that is its own working
        stage is remembered by a marker, not by a reference to itself (:attr:`_built`): no
        cycle, so a replaced pipeline (a server's old snapshot) is freed as soon as it is
        unused."""
        built = self._built
        if built is None:
            built = self._built = self.build(self.require_context())
        return built

    @property
    def _built(self) -> Any:
        """The built working stage (``None``: not built yet); the stage itself when it does
        its own work, stored as a marker (``self._built = self`` makes no cycle)."""
        built = self.__dict__.get("_built_stage")
        return self if built is _SELF else built

    @_built.setter
    def _built(self, value: Any) -> None:
        self.__dict__["_built_stage"] = _SELF if value is self else value

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        return self.inner(list(queries), run)

    def fit(self, queries: Sequence[Query], qrels: Qrels, run: Run | None = None) -> SpecStage:
        """Learn from judged queries (PyTerrier's estimator idea); only trainable stages."""
        raise InputError(f"stage {self.name!r} is not trainable", field="fit")

    def fit_summary(self) -> dict[str, Any] | None:
        """What the last :meth:`fit` learned and kept, for ``skb.fit``'s report (``None``: never
        fitted): ``kept`` (``"fitted"``, ``"untrained"``: the fit chose the stage's own
        behaviour, or ``"spec"``: the spec's parameters), what it learned, and the numbers it
        compared when it measured any (``held_out``: ``{"untrained": {...}, "fitted": {...}}``)."""
        return None

    def evidence(self) -> tuple[str, ...]:
        """What this stage's scores are made of, as keys of the bound context's resources: its
        own evidence first, then any other stage's it carries too (the graph stage: its graph,
        then the BM25 index its text score reads). Empty (the default): evidence of its own
        that no other stage carries. ``fuse`` weighs a list whose own evidence ``n`` of its
        lists carry ``1 / n`` by default, so shared evidence counts once."""
        return ()

    #: built over resources given directly (an index object, an SKB): a context bound later is
    #: not where its scores come from (subclasses set it in ``__init__``)
    owns_resources: bool = False

    def context_key(self, resource: str) -> str | None:
        """``resource`` (``"index:bm25"``) as a key of the bound context (``None``: unbound, or
        :attr:`owns_resources`)."""
        return None if self.context is None or self.owns_resources else f"{id(self.context)}:{resource}"

    def explain(self, query: Query | str, doc_id: str) -> list[str]:
        """Evidence lines for why ``doc_id`` was returned for ``query`` (may be empty)."""
        inner = self.inner
        fn = getattr(inner, "explain", None) if inner is not self else None
        if fn is None:  # (a stage that does its own work explains by overriding this)
            return []
        out = fn(as_query(query), doc_id)
        return [str(x) for x in out] if isinstance(out, (list, tuple)) else [str(out)]


class _Itself:
    """What :attr:`SpecStage.inner` stores for a stage whose ``build`` returned the stage
    itself; one object, kept by ``copy``, ``deepcopy`` and ``pickle``."""

    def __reduce__(self) -> str:
        return "_SELF"


_SELF = _Itself()


def prepare(stage: Any) -> Any:
    """Build every registered stage inside ``stage`` (a pipeline, a fusion's children) now:
    indexes opened, name tables, type graph and other set-up, not on the first query, so
    that timing the queries times queries only; a stage with a ``warmup()`` (the ``bm25``
    stage: its compiled query kernels) is warmed too. Returns ``stage``; stages given their
    resources directly are ready already, and other callables are left as they are."""
    for part in stage.stages if isinstance(stage, Pipeline) else [stage]:
        for child in getattr(part, "children", ()) or ():
            prepare(child)
        if isinstance(part, SpecStage):
            warmup = getattr(part.inner, "warmup", None)
            if callable(warmup):
                warmup()
    return stage


#: ``fitter(stage, queries, qrels, run) -> (model, info)``: a trainable stage's training loop.
Fitter = Callable[[Any, list[Query], Qrels, "Run | None"], tuple[Any, dict[str, Any]]]


class FittedStage(SpecStage):
    """A stage whose model :meth:`fit` trains (or that scores with a saved one).

    Every fit trains a fresh model on the given judged queries and their candidates in
    ``run``, so a cross-validation protocol fits it on the training folds and scores the
    held-out fold. The training loop is layer L3 (``skbsearch.train.fitters``): a stage
    names it by import path (:attr:`fitter`), loaded on the first ``fit``, so ``fit`` works
    after any import and no stage imports the layer above.
    """

    trainable = True
    #: The training loop, ``"module:function"`` (a :data:`Fitter` of layer L3).
    fitter: ClassVar[str] = ""

    def __init__(self, context: Context | None = None, **params: Any) -> None:
        super().__init__(context, **params)
        self.model: Any = None
        self.fits = 0
        self.last_fit: dict[str, Any] = {}

    def fit(self, queries: Sequence[Query], qrels: Qrels, run: Run | None = None) -> SpecStage:
        """Train a fresh model on the judged ``queries`` and their candidates in ``run``."""
        self.require_context()
        train: Fitter = load_object(self.fitter)
        self.model, self.last_fit = train(self, list(queries), qrels, run)
        self.fits += 1
        self._built = None
        return self

    def fit_summary(self) -> dict[str, Any] | None:
        """The model trained by the last fit (and its training loop's numbers)."""
        if not self.fits:
            return None
        info = {k: v for k, v in self.last_fit.items() if isinstance(v, (int, float, str, bool))}
        return {"kept": "fitted", "fits": self.fits, **info}

