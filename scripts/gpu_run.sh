#!/usr/bin/env bash
# On a GPU machine, from the repository root: install the carried wheels (.gpu-carry/, made by
# `make gpu-wheels`), print `skb env`, run the GPU tests and benchmarks/gpu.py; logs, the
# result JSON and the markdown table go under $OUT (default ./gpu-out).
#   bash scripts/gpu_run.sh            # everything (about 8 minutes on an H100)
#   bash scripts/gpu_run.sh tests      # env + GPU tests only
#   bash scripts/gpu_run.sh bench      # env + benchmark only (GPU_BENCH_ARGS: e.g. --recipe)
set -uo pipefail
cd "$(dirname "$0")/.."
WHAT=${1:-all}
OUT=${OUT:-gpu-out}
CARRY=${CARRY:-.gpu-carry}
PYTHON=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONPATH="$PWD/src" PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
export SKB_CACHE_DIR=${SKB_CACHE_DIR:-/tmp/skb-gpu-cache}
if compgen -G "$CARRY/wheels/*.whl" >/dev/null; then
    "$PYTHON" -m pip install --disable-pip-version-check -q --no-index --no-deps "$CARRY"/wheels/*.whl
fi
[ -d "$CARRY/minilm" ] && export SKB_MINILM_DIR="$PWD/$CARRY/minilm"
[ -d "$CARRY/data" ] && export SKB_SHARED_DATA="$PWD/$CARRY/data"
"$PYTHON" -c "from skbsearch.cli import main; main()" env --json > "$OUT/env.json" 2>&1
rc=0
if [ "$WHAT" = all ] || [ "$WHAT" = tests ]; then
    "$PYTHON" -m pytest -p no:cacheprovider -q -rs -m gpu tests/gpu 2>&1 | tee "$OUT/pytest-gpu.log"
    rc=${PIPESTATUS[0]}
    "$PYTHON" -m pytest -p no:cacheprovider -q -rs tests/core/test_devices.py \
        tests/index/test_torch_search.py tests/index/test_ray_gpu_plan.py \
        tests/rerank/test_amp_training.py 2>&1 | tee "$OUT/pytest-devices.log"
    [ "${PIPESTATUS[0]}" -ne 0 ] && rc=1
fi
if [ "$WHAT" = all ] || [ "$WHAT" = bench ]; then
    DL="$PWD/$CARRY/data/trec-dl"; [ -d "$DL" ] || DL="${SKB_SHARED_DATA:-../shared/data}/trec-dl"
    # shellcheck disable=SC2086
    "$PYTHON" benchmarks/gpu.py --data "$DL" --json "$OUT/gpu.json" --md "$OUT/gpu.md" \
        ${GPU_BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.log"
    [ "${PIPESTATUS[0]}" -ne 0 ] && rc=1
fi
exit $rc
