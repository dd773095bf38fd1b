"""API fuzzing: every endpoint of the OpenAPI schema driven by schemathesis, never a 5xx.

Schemathesis generates requests from the service's own OpenAPI schema (``/openapi.json``),
valid ones and malformed ones (its negative mode: wrong types, missing or extra fields,
out-of-range numbers), property-based with Hypothesis; every answer must be below 500.
Examples per endpoint and mode are bounded (:data:`FUZZ_EXAMPLES`) so the run stays well
under a minute, and derandomized so that a failure reproduces. (The schema is driven from
a plain test rather than ``schema.parametrize()``, whose fixture-based loader needs the
app at import time or a pytest it supports.)
"""

from __future__ import annotations

import pytest

from skbsearch.server import create_app
from skbsearch.server.hosts import LOCAL_HOSTS
from skbsearch.server.limits import Limits

schemathesis = pytest.importorskip("schemathesis")
pytest.importorskip("fastapi")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from schemathesis.generation.modes import GenerationMode  # noqa: E402

#: Examples per endpoint and generation mode (positive, negative).
FUZZ_EXAMPLES = 60


@pytest.fixture(scope="module")
def api_schema(small_skb):
    """The service's schema, served in-process (ASGI) over a 200-product catalogue SKB."""
    skb_dir, _ = small_skb
    app = create_app(skb_dir, Limits(request_timeout=20),
                     pipelines={"fused": "(bm25 + graph) % 20"},
                     allowed_hosts=[*LOCAL_HOSTS, "testserver"])
    return schemathesis.openapi.from_asgi("/openapi.json", app)


def operations(schema) -> list:
    return [result.ok() for result in schema.get_all_operations()]


def test_the_schema_covers_every_endpoint(api_schema):
    paths = {(op.method.upper(), op.path) for op in operations(api_schema)}
    assert {("GET", "/health"), ("GET", "/kb"), ("GET", "/pipelines"),
            ("GET", "/nodes/{node_id}"), ("POST", "/search"), ("POST", "/explain")} <= paths


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
                         ids=["valid", "malformed"])
def test_no_request_gets_a_server_error(api_schema, mode):
    seen: dict[str, int] = {}
    for op in operations(api_schema):

        @given(case=op.as_strategy(generation_mode=mode))
        @settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def fuzz(case):
            response = case.call()
            seen[case.operation.label] = seen.get(case.operation.label, 0) + 1
            assert response.status_code < 500, (
                f"{case.method} {case.formatted_path} -> {response.status_code}: "
                f"{response.text[:300]}\n{case.as_curl_command()}")

        try:
            fuzz()
        except Unsatisfiable:  # nothing malformed to make of an endpoint without inputs
            assert mode == GenerationMode.NEGATIVE and not op.body and not op.path_parameters
    want = 6 if mode == GenerationMode.POSITIVE else 3  # search, explain, nodes at least
    assert len(seen) >= want and all(n >= 1 for n in seen.values()), seen
