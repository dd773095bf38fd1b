# Two commands do all the set-up: `make demo` and `make test` (idempotent, quick when done).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO_STAMP := $(VENV)/.skb-demo.stamp
TEST_STAMP := $(VENV)/.skb-test.stamp
PIP := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: demo test lint bench clean-venv browser docs gpu-wheels

$(BIN)/python:
	$(PY) -m venv $(VENV)

# torch first, exactly 2.13.0 (a CPU wheel on these machines); everything else after it.
$(DEMO_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install torch==2.13.0
	$(PIP) install -e ".[dense]"
	touch $@

# llama-cpp-python compiles from source: build it for a portable x86-64 (AVX2) target, not
# -march=native, whose AVX-512/AMX kernels crash where the kernel does not grant AMX. No
# wheel cache: a cached native build would be reused whatever CMAKE_ARGS say.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON

$(TEST_STAMP): pyproject.toml $(DEMO_STAMP)
	$(BIN)/python -c "import llama_cpp" 2>/dev/null || CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" \
		$(PIP) install --no-cache-dir "llama-cpp-python==0.3.36"
	$(PIP) install -e ".[all,llama,test,distributed,docs]"
	$(PIP) install --no-deps stark-qa==1.1.0  # STaRK evaluator parity tests; its deps are heavy and unused
	touch $@

demo: $(DEMO_STAMP)
	$(BIN)/skb demo

# Headless Chromium + its driver from Debian, for the web explorer's browser test
# (tests/server/test_browser.py). Checked on every run (cheap); installed only when missing;
# sudo only when not root. If it cannot be installed, that test skips and says why.
browser:
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || { \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver \
		|| echo "warning: could not install chromium/chromium-driver; the browser test will skip"; }

# ruff (style and bugs), mypy (types of the packages in [tool.mypy]), lint-imports (the layer
# contracts in [tool.importlinter]), then pytest; the pytest run includes
# tests/docs/test_site.py, which builds the documentation site with --strict.
test: $(TEST_STAMP) browser
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q

# The documentation site into site/ (mkdocs.yml; strict: a broken link or reference fails).
docs: $(TEST_STAMP)
	$(BIN)/mkdocs build --strict

lint: $(TEST_STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

clean-venv:
	rm -rf $(VENV)

# The GPU run's carry (.gpu-carry/, git-ignored): wheels the GPU image lacks, fp16 MiniLM, DL19
# files, under 60 MiB. On the GPU machine: bash scripts/gpu_run.sh (see README "On a GPU").
gpu-wheels: $(DEMO_STAMP)
	PYTHON=$(BIN)/python scripts/gpu_carry.sh
