#!/usr/bin/env bash
# Build the pinned llama-cpp-python once per version and build options into a wheel cache
# outside the repository, and print that folder (for `pip install --find-links`):
#   ${TANDEM_CACHE:-~/.cache/tandem}/wheels/llama-cpp-python-<version>-<options id>/
# Later runs and fresh virtual environments install the same wheel without compiling.
#
# Why not pip's own wheel cache: it keys a built wheel by the sdist alone, not by the
# CMAKE_ARGS it was built with, so a wheel built with other options would be reused.
#
# The CPU build leaves out Intel AMX (-mno-amx-*): on virtual machines that report AMX
# but do not keep the tile state (measured on a Firecracker guest with a Sapphire Rapids
# CPU), ggml's AMX matrix kernels die with SIGILL on the first batch of prompt tokens.
# Everything else of -march=native (AVX-512, VNNI, BF16) stays. Set CMAKE_ARGS yourself
# for another backend (CUDA, Metal, Vulkan): it then replaces these options.
#
# Usage: llama_wheel.sh PYTHON   (the interpreter the wheel is for)
#        llama_wheel.sh --cmake-args   (print the options only, for build_llama_server.sh)
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
args=${CMAKE_ARGS-$(default_args)}
if [ "${1:-}" = "--cmake-args" ]; then
  echo "$args"
  exit 0
fi
python_bin=${1:?usage: llama_wheel.sh PYTHON}
version=$(sed -n 's/.*"llama-cpp-python==\([0-9.]*\)".*/\1/p' pyproject.toml | head -n 1)
[ -n "$version" ] || { echo "llama_wheel: no llama-cpp-python pin in pyproject.toml" >&2; exit 2; }
tag=$("$python_bin" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
id=$(printf '%s|%s|%s' "$args" "$tag" "$(uname -m)" | sha256sum | cut -c1-12)
cache=${TANDEM_CACHE:-$HOME/.cache/tandem}
out="$cache/wheels/llama-cpp-python-$version-$tag-$id"
if ls "$out"/llama_cpp_python-"$version"-*.whl >/dev/null 2>&1; then
  echo "$out"
  exit 0
fi
echo "llama_wheel: building llama-cpp-python $version for $tag (about 6 minutes on two cores, once)" >&2
mkdir -p "$cache/wheels"
partial=$(mktemp -d "$cache/wheels/.partial-XXXXXX")
trap 'rm -rf "$partial"' EXIT
CMAKE_ARGS="$args" "$python_bin" -m pip wheel --quiet --no-deps --no-cache-dir --no-binary llama-cpp-python \
  --wheel-dir "$partial" "llama-cpp-python==$version" >&2
printf '%s\n' "$args" >"$partial/cmake-args.txt"
rm -rf "$out"
mv "$partial" "$out" # atomic: a cut build never leaves a wheel that looks finished
trap - EXIT
echo "$out"
