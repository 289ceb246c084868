#!/usr/bin/env bash
# The GPU check: on one NVIDIA GPU, in one run, the target alone, Tandem's default and llama.cpp's
# speculative decoding at its best draft length (llama-server with the same layers on the GPU),
# on the held-out check prompts; the report is gpu-check/bench.md and bench.json.
#
# Two ways to run it:
#
#   bash scripts/gpu_check.sh TARGET.gguf DRAFT.gguf [bench options]
#       on a machine with the GPU, nvcc, the network and the model files: builds the CUDA wheel
#       (scripts/llama_wheel.sh, this GPU's architecture) into its own virtual environment
#       (TANDEM_GPU_VENV, default .venv-gpu) and a CUDA llama-server, then measures.
#
#   A lent GPU machine that starts bare, cannot reach the network, and receives only the
#   working tree plus carried folders (at most 64 MiB a call, 10 minutes a command, about 15
#   minutes of machine time in all; nothing here compiles there in time: one CUDA build of
#   ggml takes longer than a command may run):
#     bash scripts/gpu_check.sh pack [ARCH]   here, once, on any x86-64 machine with nvcc and the
#         network (no GPU needed; hours on two cores, so start it early): builds the CUDA wheel and
#         a CUDA llama-server for ARCH (default 90: H100 and H200), downloads the Python packages
#         the bench needs for Python 3.12, and splits them with the small pair into .gpu-check/part-NN
#         folders of at most 60 MiB each. It prints how many calls the machine needs.
#     bash scripts/gpu_check.sh receive       there, one call per part, carrying .gpu-check/part-NN:
#         moves the part to TANDEM_GPU_CHECK_STAGE (default /tmp/tandem-gpu-check), which lasts
#         while the machine stays warm between calls (it goes back when idle, so call again at once).
#     TANDEM_GPU_CHECK_OUT=$OUT bash scripts/gpu_check.sh run   there, last: joins and checks the
#         parts, installs them beside the machine's own Python and measures (a few minutes on the
#         small pair: seven check prompts, one per category); the report's four files come back.
#
# Which models can reach the lent machine: only the small pair (SmolLM2-135M Q4_1 target, Q4_0
# draft: 189 MB, four parts; the packages add 37 MB and the two CUDA builds more, so `pack` prints
# the count, not yet measured: the first pack has not finished here). The demo pair
# (Qwen2.5-Coder 1.5B + 0.5B, 1.6 GB) would need about 28 calls, more than the machine's time.
# A 135M target is far smaller than the models a GPU is bought for: its figures say whether the
# GPU path works and how the three compare on it, not what a 7B model gains.
#
# Extra arguments go to `main.py bench`. It stops at once, saying why, where there is no NVIDIA
# GPU (nvidia-smi) or, to build, no CUDA compiler (nvcc).
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "gpu_check: $*" >&2
  exit 2
}

out=${TANDEM_GPU_CHECK_OUT:-gpu-check}
stage=${TANDEM_GPU_CHECK_STAGE:-/tmp/tandem-gpu-check}
pack_dir=${TANDEM_GPU_CHECK_PACK:-.gpu-check}
part_bytes=$((60 * 1024 * 1024))
# The comparison the report is for: the target alone and the default beside llama-server at each
# draft length (its best is the one to beat), one prompt per category, one repeat: a few minutes.
bench_args=(--set check --default-only --vs-llama-server --peer-draft-lengths 2,4,8,16 --peer-ngram ""
  --prompts-per-category 1 --repeats 1 --max-tokens 96 --no-preflight --no-overhead-probe --threads 8 --max-wait 30)

need_gpu() {
  command -v nvidia-smi >/dev/null || fail "nvidia-smi is not on PATH: this check needs an NVIDIA GPU and its driver"
  nvidia-smi -L 2>/dev/null | grep -q '^GPU' || fail "nvidia-smi lists no GPU: this check needs an NVIDIA GPU"
}

measure() { # PYTHON TARGET DRAFT [bench options]: the memory plan, then the bench, into $out
  local python=$1 target=$2 draft=$3
  shift 3
  "$python" -c 'import llama_cpp, sys; sys.exit(0 if llama_cpp.llama_supports_gpu_offload() else 1)' \
    || fail "the llama.cpp build for $python cannot offload to the GPU"
  mkdir -p "$out"
  nvidia-smi --query-gpu=name,memory.total,memory.free,driver_version,compute_cap --format=csv | tee "$out/gpu.csv"
  "$python" main.py memory --target "$target" --draft "$draft" | tee "$out/memory.txt"
  "$python" main.py bench --target "$target" --draft "$draft" "${bench_args[@]}" \
    --json "$out/bench.json" --markdown "$out/bench.md" "$@"
  echo "gpu_check: the report is in $out/bench.md"
}

pack() {
  local arch=${1:-90} python=${PYTHON:-.venv/bin/python} models wheels server
  command -v nvcc >/dev/null || fail "nvcc is not on PATH: install the CUDA toolkit (or put its bin/ on PATH)"
  models=${TANDEM_MODELS:-$HOME/.local/share/Tandem/models}
  for file in SmolLM2-135M-Instruct.Q4_1.gguf SmolLM2-135M-Instruct.Q4_0.gguf; do
    [ -f "$models/$file" ] || fail "no $models/$file: install the small pair first (main.py models install-small)"
  done
  wheels=$(TANDEM_GPU=cuda TANDEM_CUDA_ARCHS="$arch" bash scripts/llama_wheel.sh "$python")
  server=$(TANDEM_GPU=cuda TANDEM_CUDA_ARCHS="$arch" bash scripts/build_llama_server.sh)
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/payload/wheels"
  cp "$wheels"/llama_cpp_python-*.whl "$work/payload/wheels/"
  # What the bench imports, for the machine's Python 3.12 (the GUI's Qt is not needed to measure).
  sed -n '/^dependencies = \[/,/^\]/p' pyproject.toml | grep -o '^ *"[^"]*"' | tr -d ' "' \
    | grep -v -e '^llama-cpp-python' -e '^PySide6' >"$work/requirements.txt"
  # pip matches each manylinux tag exactly: the ones these packages' wheels carry (about 37 MB in all).
  local platforms=(--platform any --platform manylinux2014_x86_64) n
  for n in 17 24 27 28 31 34 35; do
    platforms+=(--platform "manylinux_2_${n}_x86_64")
  done
  "$python" -m pip download --quiet --only-binary=:all: --python-version 3.12 --implementation cp \
    "${platforms[@]}" -d "$work/payload/wheels" -r "$work/requirements.txt"
  cp "$server" "$work/payload/llama-server"
  cp "$models"/SmolLM2-135M-Instruct.Q4_1.gguf "$models"/SmolLM2-135M-Instruct.Q4_0.gguf "$work/payload/"
  (cd "$work/payload" && sha256sum -- llama-server ./*.gguf wheels/* >SHA256SUMS)
  tar -C "$work" -czf "$work/payload.tar.gz" payload
  rm -rf "$pack_dir"
  mkdir -p "$pack_dir"
  split -b "$part_bytes" -d -a 2 "$work/payload.tar.gz" "$work/piece-"
  local piece n=0
  for piece in "$work"/piece-*; do
    n=$((n + 1))
    mkdir -p "$pack_dir/part-$(printf %02d "$n")"
    mv "$piece" "$pack_dir/part-$(printf %02d "$n")/payload.$(basename "$piece" | cut -d- -f2)"
  done
  echo "gpu_check: $n parts in $pack_dir (each at most 60 MiB): one call per part, carrying it," \
    "with 'bash scripts/gpu_check.sh receive', then one with 'bash scripts/gpu_check.sh run'"
}

receive() {
  local found=no part
  mkdir -p "$stage"
  for part in "$pack_dir"/part-*; do
    ls "$part"/payload.* >/dev/null 2>&1 || continue
    mv "$part"/payload.* "$stage/"
    rmdir "$part" 2>/dev/null || true
    found=yes
  done
  [ "$found" = yes ] || fail "no $pack_dir/part-NN here: carry one with this call"
  echo "gpu_check: staged $(ls "$stage" | tr '\n' ' ')"
}

run_staged() {
  need_gpu
  ls "$stage"/payload.* >/dev/null 2>&1 || fail "nothing staged in $stage: send the parts first (receive)"
  cat "$stage"/payload.* | tar -C "$stage" -xz || fail "the staged parts do not join: one is missing or cut"
  local payload=$stage/payload python=${PYTHON:-python3}
  (cd "$payload" && sha256sum --quiet -c SHA256SUMS) || fail "a staged file does not match its checksum"
  "$python" -m pip install --quiet --no-index --no-deps --no-compile --target "$stage/site" "$payload"/wheels/*.whl
  chmod +x "$payload/llama-server"
  # The CUDA runtime and cuBLAS the builds link: the toolkit's, or NVIDIA's Python packages there.
  local cuda_libs
  cuda_libs=$("$python" -c 'import nvidia, os; print(":".join(os.path.join(p, "cu13", "lib") for p in nvidia.__path__))' \
    2>/dev/null || true)
  export LD_LIBRARY_PATH="${cuda_libs:+$cuda_libs:}/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PYTHONPATH="$stage/site" TANDEM_LLAMA_SERVER="$payload/llama-server"
  measure "$python" "$payload/SmolLM2-135M-Instruct.Q4_1.gguf" "$payload/SmolLM2-135M-Instruct.Q4_0.gguf" "$@"
}

case "${1:-}" in
  pack) shift; pack "$@"; exit 0 ;;
  receive) receive; exit 0 ;;
  run) shift; run_staged "$@"; exit 0 ;;
esac

[ $# -ge 2 ] || fail "usage: bash scripts/gpu_check.sh TARGET.gguf DRAFT.gguf [bench options] | pack [ARCH] | receive | run"
target=$1 draft=$2
shift 2
need_gpu
command -v nvcc >/dev/null || fail "nvcc is not on PATH: install the CUDA toolkit (or put its bin/ on PATH)"
for file in "$target" "$draft"; do
  [ -f "$file" ] || fail "no such model file: $file"
done
python_bin=${PYTHON:-$(command -v python3.11 || command -v python3)}
venv=${TANDEM_GPU_VENV:-.venv-gpu}
[ -x "$venv/bin/python" ] || "$python_bin" -m venv "$venv"
wheels=$(TANDEM_GPU=cuda bash scripts/llama_wheel.sh "$venv/bin/python")
"$venv/bin/python" -m pip install --quiet --find-links "$wheels" -e .
"$venv/bin/python" -m pip install --quiet --no-deps --force-reinstall --no-index --find-links "$wheels" \
  "$(ls "$wheels"/llama_cpp_python-*.whl)"
TANDEM_LLAMA_SERVER=$(TANDEM_GPU=cuda TANDEM_VENV="$venv" bash scripts/build_llama_server.sh)
export TANDEM_LLAMA_SERVER
measure "$venv/bin/python" "$target" "$draft" "$@"
