"""The registered-stage protocol (core/stage.py): typed parameters coerced from spec values,
errors naming the parameter, the repr that prints back as the spec, value equality, and
the context a stage needs before it runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.stage import (
    SpecStage,
    device_param,
    format_value,
    is_stage_context,
    precision_param,
)
from skbsearch.core.types import Query, Run


class Scaled(SpecStage):
    """A stage of this test (not registered): each candidate's score times ``factor``."""

    name = "scaled"

    @dataclass
    class Params:
        factor: float = 1.0
        k: int = 10
        fields: tuple[str, ...] = ()
        label: str | None = None
        exact: bool = False
        target: str = field(default="all", metadata={"help": "what to scale"})

        def check(self) -> None:
            if self.k < 1:
                raise InputError("k must be >= 1", field="k")

    def build(self, context: Any) -> Any:
        return self

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        self.require_context()
        given = run if run is not None else Run()
        return Run({q.id: {d: s * self.params.factor for d, s in given.get(q.id, {}).items()}
                    for q in queries})


class Needy(SpecStage):
    """A stage of this test with a required parameter."""

    name = "needy"

    @dataclass
    class Params:
        path: str


def test_spec_values_are_coerced_to_the_declared_types() -> None:
    p = Scaled(factor=2, k=3.0, fields="title, body", label=7, exact=True).params
    assert (p.factor, p.k, p.fields, p.label, p.exact) == (2.0, 3, ("title", "body"), "7", True)
    assert type(p.factor) is float and type(p.k) is int
    assert Scaled(fields=["a"], label=None).params.fields == ("a",)


@pytest.mark.parametrize(("params", "says", "name"), [
    ({"k": 2.5}, "scaled: parameter k takes int, got 2.5", "k"),
    ({"k": True}, "parameter k takes int, got true", "k"),
    ({"exact": 1}, "parameter exact takes bool, got 1", "exact"),
    ({"factor": "big"}, "parameter factor takes float, got 'big'", "factor"),
    ({"k": 0}, "k must be >= 1", "k"),
    ({"size": 3}, "stage 'scaled' has no parameter 'size'; its parameters: factor, k, fields", "size"),
])
def test_bad_values_and_names_are_input_errors_naming_the_parameter(params: dict, says: str,
                                                                    name: str) -> None:
    with pytest.raises(InputError) as e:
        Scaled(**params)
    assert says in str(e.value) and e.value.field == name


def test_a_required_parameter_is_named_when_missing() -> None:
    with pytest.raises(InputError, match="stage 'needy' needs parameter\\(s\\) path"):
        Needy()
    assert Needy(path="runs/a.trec").params.path == "runs/a.trec"


def test_the_repr_is_the_spec_of_the_non_default_parameters() -> None:
    assert repr(Scaled()) == "scaled"
    assert repr(Scaled(k=5, fields=["a", "b"], target="it's", exact=True)) == (
        "scaled(k=5, fields=['a', 'b'], exact=true, target='it\\'s')")
    assert [format_value(v) for v in (None, False, 1.5, "a\\b")] == ["none", "false", "1.5", "'a\\\\b'"]


def test_stages_are_equal_by_parameters_and_unhashable() -> None:
    assert Scaled(k=5) == Scaled(k=5.0) and Scaled(k=5) != Scaled(k=6)
    assert Scaled() != Needy(path="x")
    with pytest.raises(TypeError):
        hash(Scaled())


def test_a_stage_without_a_context_says_how_to_bind_one() -> None:
    stage = Scaled(factor=2.0)
    with pytest.raises(InputError, match=r"stage scaled\(factor=2.0\) is not bound to an SKB"):
        stage([Query("q", "x")], Run({"q": {"d": 1.0}}))

    class Ctx:
        kb = None

        def index(self, kind: str) -> Any:
            raise KeyError(kind)

    ctx: Any = Ctx()  # the parts of a Context this stage reads
    other: Any = Ctx()
    assert is_stage_context(ctx) and not is_stage_context(object())
    assert stage.bind(ctx).context is ctx and stage.bind(other).context is ctx  # kept once bound
    assert stage([Query("q", "x")], Run({"q": {"d": 1.5}})) == {"q": {"d": 3.0}}


class OnDevice(SpecStage):
    """A model stage of this test: device and precision parameters, no check of its own."""

    name = "on-device"

    @dataclass
    class Params:
        k: int = 10
        device: str | None = device_param()
        precision: str | None = precision_param()


def test_a_model_stages_device_and_precision_are_checked_once_for_every_stage() -> None:
    stage = OnDevice(device="CPU", precision="BF16")
    assert (stage.params.device, stage.params.precision) == ("cpu", "bf16")
    assert repr(stage) == "on-device(device='cpu', precision='bf16')"
    with pytest.raises(InputError, match="unknown device 'tpu'"):
        OnDevice(device="tpu")
    with pytest.raises(InputError, match="precision"):
        OnDevice(precision="fp7")
