#!/usr/bin/env bash
# The GPU check, in one go on a machine with an NVIDIA GPU and the model files:
#   bash scripts/gpu_check.sh TARGET.gguf DRAFT.gguf
# 1. builds llama-cpp-python with the CUDA backend (scripts/llama_wheel.sh, TANDEM_GPU=cuda) into
#    a virtual environment of its own (TANDEM_GPU_VENV, default .venv-gpu; the app's .venv stays),
# 2. checks that the build offloads, prints `memory` for the pair (GPU layers "auto": the plan),
# 3. runs the benchmark's held-out check set on the two files (GPU layers auto), writing
#    gpu-check/bench.json and gpu-check/bench.md (TANDEM_GPU_CHECK_OUT to change the folder).
# Extra arguments go to `main.py bench` (e.g. --repeats 1 --max-tokens 64).
# It stops at once, saying why, where there is no NVIDIA GPU (nvidia-smi) or no CUDA compiler (nvcc).
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "gpu_check: $*" >&2
  exit 2
}
[ $# -ge 2 ] || fail "usage: bash scripts/gpu_check.sh TARGET.gguf DRAFT.gguf [bench options]"
target=$1 draft=$2
shift 2
command -v nvidia-smi >/dev/null || fail "nvidia-smi is not on PATH: this check needs an NVIDIA GPU and its driver"
nvidia-smi -L 2>/dev/null | grep -q '^GPU' || fail "nvidia-smi lists no GPU: this check needs an NVIDIA GPU"
command -v nvcc >/dev/null || fail "nvcc is not on PATH: install the CUDA toolkit (or put its bin/ on PATH)"
for file in "$target" "$draft"; do
  [ -f "$file" ] || fail "no such model file: $file"
done

python_bin=${PYTHON:-$(command -v python3.11 || command -v python3)}
venv=${TANDEM_GPU_VENV:-.venv-gpu}
out=${TANDEM_GPU_CHECK_OUT:-gpu-check}
[ -x "$venv/bin/python" ] || "$python_bin" -m venv "$venv"
wheels=$(TANDEM_GPU=cuda bash scripts/llama_wheel.sh "$venv/bin/python")
"$venv/bin/python" -m pip install --quiet --find-links "$wheels" -e .
"$venv/bin/python" -m pip install --quiet --no-deps --force-reinstall --no-index --find-links "$wheels" \
  "$(ls "$wheels"/llama_cpp_python-*.whl)"
"$venv/bin/python" -c 'import llama_cpp, sys; sys.exit(0 if llama_cpp.llama_supports_gpu_offload() else 1)' \
  || fail "the CUDA build in $venv cannot offload to the GPU"
nvidia-smi --query-gpu=name,memory.total,memory.free,driver_version --format=csv
"$venv/bin/python" main.py memory --target "$target" --draft "$draft"
mkdir -p "$out"
"$venv/bin/python" main.py bench --target "$target" --draft "$draft" --set check \
  --json "$out/bench.json" --markdown "$out/bench.md" "$@"
echo "gpu_check: the report is in $out/bench.md"
