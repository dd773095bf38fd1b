# Two commands do all the set-up: `make demo` and `make test` (idempotent, quick when done).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO_STAMP := $(VENV)/.skb-demo.stamp
TEST_STAMP := $(VENV)/.skb-test.stamp
PIP := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: demo test lint bench clean-venv

$(BIN)/python:
	$(PY) -m venv $(VENV)

# torch first, exactly 2.13.0 (a CPU wheel on these machines); everything else after it.
$(DEMO_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install torch==2.13.0
	$(PIP) install -e ".[dense]"
	touch $@

$(TEST_STAMP): pyproject.toml $(DEMO_STAMP)
	$(PIP) install -e ".[all,llama,test]"
	touch $@

demo: $(DEMO_STAMP)
	$(BIN)/skb demo

test: $(TEST_STAMP)
	$(BIN)/python -m pytest -q

lint: $(TEST_STAMP)
	$(BIN)/ruff check src tests benchmarks

clean-venv:
	rm -rf $(VENV)
