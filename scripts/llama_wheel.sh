#!/usr/bin/env bash
# Build the pinned llama-cpp-python once per version, backend and build options into a wheel
# cache outside the repository, and print that folder (for `pip install --find-links`):
#   ${TANDEM_CACHE:-~/.cache/tandem}/wheels/llama-cpp-python-<version>-<tag>[-<backend>]-<options id>/
# Later runs and fresh virtual environments install the same wheel without compiling.
#
# Why not pip's own wheel cache: it keys a built wheel by the sdist alone, not by the
# CMAKE_ARGS it was built with, so a wheel built with other options would be reused.
#
# The backend is the GPU one this machine has (TANDEM_GPU, default auto):
#   cuda    nvcc on PATH and an NVIDIA GPU that nvidia-smi lists (-DGGML_CUDA=on, for this GPU's
#           architecture only). nvcc alone is not enough: a CUDA build cannot even be imported
#           without the driver's libcuda, and CUDA toolkits are often installed without a GPU.
#   vulkan  glslc on PATH and the Vulkan headers (-DGGML_VULKAN=on)
#   metal   Apple Silicon (llama.cpp's default there)
#   cpu     otherwise, or TANDEM_GPU=off. TANDEM_GPU=cuda|vulkan|metal forces one.
# It says which in one line on stderr. The CPU options stay in every build (the CPU runs the
# layers left off the GPU). Setting CMAKE_ARGS yourself replaces all of this ("custom").
#
# The CPU build leaves out Intel AMX (-mno-amx-*): on virtual machines that report AMX
# but do not keep the tile state (measured on a Firecracker guest with a Sapphire Rapids
# CPU), ggml's AMX matrix kernels die with SIGILL on the first batch of prompt tokens.
# Everything else of -march=native (AVX-512, VNNI, BF16) stays.
#
# Usage: llama_wheel.sh PYTHON   (the interpreter the wheel is for)
#        llama_wheel.sh --cmake-args   (print the options only; TANDEM_GPU=off for the CPU ones)
#        llama_wheel.sh --backend      (print the backend and why, builds nothing)
set -euo pipefail
cd "$(dirname "$0")/.."

default_args() {
  case "$(uname -m)" in
    x86_64 | amd64)
      echo "-DGGML_NATIVE=ON -DCMAKE_C_FLAGS=-mno-amx-tile\ -mno-amx-int8\ -mno-amx-bf16" \
        "-DCMAKE_CXX_FLAGS=-mno-amx-tile\ -mno-amx-int8\ -mno-amx-bf16"
      ;;
    *) echo "" ;;
  esac
}
vulkan_headers() {
  [ -f "${VULKAN_SDK:-/nonexistent}/include/vulkan/vulkan.h" ] || [ -f /usr/include/vulkan/vulkan.h ] \
    || [ -f /usr/local/include/vulkan/vulkan.h ]
}

# Sets backend (cpu, cuda, vulkan, metal, custom) and why (words for the one line it says).
choose_backend() {
  if [ -n "${CMAKE_ARGS+set}" ]; then
    backend=custom why="CMAKE_ARGS given"
    return
  fi
  case "${TANDEM_GPU:-auto}" in
    off | cpu) backend=cpu why="TANDEM_GPU=${TANDEM_GPU}" ;;
    cuda | vulkan | metal) backend=$TANDEM_GPU why="TANDEM_GPU=${TANDEM_GPU}" ;;
    auto)
      if [ "$(uname -s)" = Darwin ] && [ "$(uname -m)" = arm64 ]; then
        backend=metal why="Apple Silicon"
      elif command -v nvcc >/dev/null && command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
        backend=cuda why="nvcc and an NVIDIA GPU found"
      elif command -v glslc >/dev/null && vulkan_headers; then
        backend=vulkan why="glslc and the Vulkan headers found"
      elif command -v nvcc >/dev/null; then
        backend=cpu why="nvcc found but no NVIDIA GPU (nvidia-smi lists none)"
      else
        backend=cpu why="no nvcc, glslc or Apple Silicon found"
      fi
      ;;
    *)
      echo "llama_wheel: TANDEM_GPU must be auto, off, cuda, vulkan or metal, not '${TANDEM_GPU}'" >&2
      exit 2
      ;;
  esac
}

backend_args() {
  case "$backend" in
    custom) echo "$CMAKE_ARGS" ;;
    cpu) default_args ;;
    # native: only this machine's GPU architecture (all of them take far longer to compile).
    cuda) echo "-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=native $(default_args)" ;;
    vulkan) echo "-DGGML_VULKAN=on $(default_args)" ;;
    metal) echo "-DGGML_METAL=on $(default_args)" ;;
  esac
}

# What else the build depends on: a CUDA build for one architecture is kept per GPU kind.
backend_detail() {
  if [ "$backend" = cuda ] && command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | sort -u | tr '\n' ' '
  fi
}

choose_backend
args=$(backend_args)
if [ "${1:-}" = "--cmake-args" ]; then
  echo "$args"
  exit 0
fi
if [ "${1:-}" = "--backend" ]; then
  echo "$backend ($why)"
  exit 0
fi
python_bin=${1:?usage: llama_wheel.sh PYTHON}
version=$(sed -n 's/.*"llama-cpp-python==\([0-9.]*\)".*/\1/p' pyproject.toml | head -n 1)
[ -n "$version" ] || { echo "llama_wheel: no llama-cpp-python pin in pyproject.toml" >&2; exit 2; }
tag=$("$python_bin" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
cache=${TANDEM_CACHE:-$HOME/.cache/tandem}
if [ "$backend" = cpu ]; then
  # The CPU key is what it was before backends were chosen, so existing CPU wheels stay valid.
  id=$(printf '%s|%s|%s' "$args" "$tag" "$(uname -m)" | sha256sum | cut -c1-12)
  out="$cache/wheels/llama-cpp-python-$version-$tag-$id"
else
  id=$(printf '%s|%s|%s|%s|%s' "$backend" "$args" "$tag" "$(uname -m)" "$(backend_detail)" | sha256sum | cut -c1-12)
  out="$cache/wheels/llama-cpp-python-$version-$tag-$backend-$id"
fi
if ls "$out"/llama_cpp_python-"$version"-*.whl >/dev/null 2>&1; then
  echo "llama_wheel: llama-cpp-python $version, $backend backend ($why), built before" >&2
  echo "$out"
  exit 0
fi
echo "llama_wheel: building llama-cpp-python $version for $tag, $backend backend ($why); about 6 minutes" \
  "on two cores for the CPU, longer for a GPU, once" >&2
mkdir -p "$cache/wheels"
partial=$(mktemp -d "$cache/wheels/.partial-XXXXXX")
trap 'rm -rf "$partial"' EXIT
CMAKE_ARGS="$args" "$python_bin" -m pip wheel --quiet --no-deps --no-cache-dir --no-binary llama-cpp-python \
  --wheel-dir "$partial" "llama-cpp-python==$version" >&2
printf '%s\n' "$args" >"$partial/cmake-args.txt"
printf '%s\n' "$backend" >"$partial/backend.txt"
rm -rf "$out"
mv "$partial" "$out" # atomic: a cut build never leaves a wheel that looks finished
trap - EXIT
echo "$out"
