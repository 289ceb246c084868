#!/usr/bin/env bash
# Build llama.cpp's llama-server from the sources that the pinned llama-cpp-python
# sdist vendors, once per version, into a cache outside the repository:
#   ${TANDEM_CACHE:-~/.cache/tandem}/llama-server-<version>/llama-server
# The tests run it as a real remote engine (tests/engine/remote), and `bench --vs-llama-server`
# beside Tandem; scripts/test.sh and that bench build it on first use (scripts/setup.sh does not:
# the app never runs it). A CPU build (the tests run it with -ngl 0); TANDEM_GPU=cuda builds a CUDA
# one instead (scripts/gpu_check.sh), with llama_wheel.sh's CUDA options (TANDEM_CUDA_ARCHS), into
# llama-server-<version>-cuda, so neither replaces the other. Safe to run again: it
# does nothing when the binary for this version exists. About 10 minutes on two
# cores the first time. Needs a C++ compiler and CMake; downloads only the sdist
# from PyPI (LLAMA_USE_PREBUILT_UI=OFF keeps the build from fetching its web UI).
# Prints the binary's path on its last line.
#
# With --tools it builds llama.cpp's measuring tools instead, from the same sources and CPU
# options, into their own folder (so a build of one never replaces the other's binary):
#   ${TANDEM_CACHE:-~/.cache/tandem}/llama-tools-<version>/{llama-bench,llama-speculative-simple}
# (`bench --prefill` runs llama-bench; llama-speculative-simple is llama.cpp's plain speculative
# loop). It then prints that folder on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  "") kind=server targets=(llama-server) examples=OFF ;;
  --tools) kind=tools targets=(llama-bench llama-speculative-simple) examples=ON ;;
  *) echo "build_llama_server: unknown option $1 (use --tools, or nothing for llama-server)" >&2; exit 2 ;;
esac
venv=${TANDEM_VENV:-.venv}
version=$(sed -n 's/.*"llama-cpp-python==\([0-9.]*\)".*/\1/p' pyproject.toml | head -n 1)
[ -n "$version" ] || { echo "build_llama_server: no llama-cpp-python pin in pyproject.toml" >&2; exit 2; }
cache=${TANDEM_CACHE:-$HOME/.cache/tandem}
case "${TANDEM_GPU:-off}" in
  off | cpu | auto) gpu=off suffix="" ;;
  cuda) gpu=cuda suffix=-cuda ;;
  *) echo "build_llama_server: TANDEM_GPU must be off or cuda here, not '${TANDEM_GPU}'" >&2; exit 2 ;;
esac
out="$cache/llama-$kind-$version$suffix"
# What to print when done: the server's binary, or the tools' folder.
result() { if [ "$kind" = server ]; then echo "$out/llama-server"; else echo "$out"; fi; }
# The options it was built with are kept beside it: a binary built with others is built again.
cpu_args=$(TANDEM_GPU=$gpu bash scripts/llama_wheel.sh --cmake-args)
# A CUDA toolkit without cuBLAS: the headers of the package llama_wheel.sh installed beside the wheels.
if [[ $cpu_args =~ -DCUDA_cublas_LIBRARY=([^ ]*)/lib/ ]]; then
  [ -d "${BASH_REMATCH[1]}/include" ] \
    || { echo "build_llama_server: no cuBLAS: build the CUDA wheel first (TANDEM_GPU=cuda scripts/llama_wheel.sh)" >&2; exit 2; }
  export CPATH="${BASH_REMATCH[1]}/include${CPATH:+:$CPATH}"
fi
built=yes
for target in "${targets[@]}"; do
  [ -x "$out/$target" ] || built=no
done
if [ "$built" = yes ] && [ "$(cat "$out/cmake-args.txt" 2>/dev/null)" = "$cpu_args" ]; then
  result
  exit 0
fi
for tool in cmake c++; do
  command -v "$tool" >/dev/null || { echo "build_llama_server: $tool is needed (apt-get install cmake g++)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "build_llama_server: fetching the llama-cpp-python $version sources" >&2
"$venv/bin/python" -m pip download --quiet --no-deps --no-binary :all: --dest "$work" "llama-cpp-python==$version"
tar -xzf "$work"/llama_cpp_python-"$version".tar.gz -C "$work"
src="$work/llama_cpp_python-$version/vendor/llama.cpp"
echo "build_llama_server: building ${targets[*]} (minutes)" >&2
# The same CPU options as the Python bindings' wheel (scripts/llama_wheel.sh: no AMX). The examples
# (llama-speculative-simple is one) are configured only for --tools; building names its targets alone.
eval "cmake -S \"\$src\" -B \"\$work/build\" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=$examples -DGGML_NATIVE=ON ${cpu_args//;/\\;}" >"$work/cmake.log" 2>&1 \
  || { tail -n 30 "$work/cmake.log" >&2; exit 1; }
cmake --build "$work/build" --target "${targets[@]}" -j "$(nproc)" >"$work/build.log" 2>&1 \
  || { tail -n 30 "$work/build.log" >&2; exit 1; }
mkdir -p "$out.partial"
for target in "${targets[@]}"; do
  cp "$work/build/bin/$target" "$out.partial/$target"
done
printf '%s\n' "$cpu_args" >"$out.partial/cmake-args.txt"
rm -rf "$out"
mv "$out.partial" "$out"  # atomic: a cut build never leaves a binary that looks finished
result
