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
#           TANDEM_CUDA_ARCHS names the architectures instead ("89", "86;89", "all"); "all" is
#           Turing to Blackwell as CUDA 13 compiles them (75 80 86 89 90 100 120, see CUDA_ALL),
#           and it is what TANDEM_GPU=cuda builds where nvidia-smi lists no GPU (a release build).
#           Given architectures need no nvidia-smi; each one must be one that this nvcc lists.
#   vulkan  everything ggml's Vulkan build needs (-DGGML_VULKAN=on): glslc on PATH, Vulkan headers
#           that declare VK_EXT_layer_settings (Debian 12's 1.3.239 are too old), the SPIR-V headers'
#           CMake package and the Vulkan loader, looked for under $VULKAN_SDK, /usr and /usr/local
#           (TANDEM_VULKAN_PREFIXES replaces that list). "auto" takes Vulkan only when all are there
#           and otherwise says in one line what to install and builds for the CPU.
#           TANDEM_GPU=vulkan with old or missing headers on a Debian-like system fetches Debian 13's
#           libvulkan-dev and spirv-headers (apt-get download with a private apt folder; the system's
#           sources are not touched) into ${TANDEM_CACHE:-~/.cache/tandem}/vulkan-headers and builds
#           against them. Which device a Vulkan build uses: ggml skips CPU-type devices (lavapipe)
#           unless GGML_VK_VISIBLE_DEVICES names them.
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
#        llama_wheel.sh --stamp PYTHON (print the cache folder and what its key is made of, builds nothing)
# Each built folder holds stamp.txt: the version, backend, options and (CUDA) nvcc release it was built from.
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
# The Vulkan build's needs under the prefixes given; sets vk_include, vk_spirv, vk_loader (empty when
# not found) and vk_missing (what to install, empty when nothing is missing).
find_vulkan() {
  vk_include="" vk_spirv="" vk_loader="" vk_missing="" vk_old=""
  local prefix core config loader
  for prefix in "$@"; do
    core=$prefix/include/vulkan/vulkan_core.h
    if [ -z "$vk_include" ] && [ -f "$core" ] && [ -f "$prefix/include/vulkan/vulkan.hpp" ]; then
      # The pinned ggml-vulkan uses vk::LayerSettingEXT (VK_EXT_layer_settings): older headers fail in the compiler.
      if grep -q VK_EXT_LAYER_SETTINGS_EXTENSION_NAME "$core"; then
        vk_include=$prefix/include
      else
        vk_old=$(sed -n 's/^#define VK_HEADER_VERSION_COMPLETE VK_MAKE_API_VERSION(0, *\([0-9]*\), *\([0-9]*\),.*/\1.\2/p' "$core" | head -n 1)
        vk_old="${vk_old:-1.?}.$(sed -n 's/^#define VK_HEADER_VERSION \([0-9]*\).*/\1/p' "$core" | head -n 1) in $prefix/include"
      fi
    fi
    if [ -z "$vk_spirv" ]; then
      for config in "$prefix"/share/cmake/SPIRV-Headers "$prefix"/lib/cmake/SPIRV-Headers \
        "$prefix"/lib64/cmake/SPIRV-Headers "$prefix"/lib/*-linux-gnu/cmake/SPIRV-Headers; do
        if [ -f "$config/SPIRV-HeadersConfig.cmake" ]; then vk_spirv=$config && break; fi
      done
    fi
    if [ -z "$vk_loader" ]; then
      for loader in "$prefix"/lib/libvulkan.so "$prefix"/lib/*-linux-gnu/libvulkan.so "$prefix"/lib64/libvulkan.so \
        "$prefix"/lib/libvulkan.so.1 "$prefix"/lib/*-linux-gnu/libvulkan.so.1 "$prefix"/lib64/libvulkan.so.1 \
        "$prefix"/lib/libvulkan.dylib "$prefix"/lib/libvulkan.1.dylib; do
        # -e: a development link whose library is not installed does not count.
        if [ -e "$loader" ]; then vk_loader=$loader && break; fi
      done
    fi
  done
  local missing=()
  command -v glslc >/dev/null || missing+=("glslc")
  if [ -z "$vk_include" ]; then
    if [ -n "$vk_old" ]; then
      missing+=("newer Vulkan headers (libvulkan-dev: $vk_old lacks VK_EXT_layer_settings)")
    else
      missing+=("the Vulkan headers (libvulkan-dev)")
    fi
  fi
  [ -n "$vk_spirv" ] || missing+=("the SPIR-V headers (spirv-headers)")
  [ -n "$vk_loader" ] || missing+=("the Vulkan loader (libvulkan1)")
  vk_missing=$(IFS=,; echo "${missing[*]}" | sed 's/,/, /g')
}
vulkan_prefixes() {
  # shellcheck disable=SC2086  # a list of folders
  echo ${TANDEM_VULKAN_PREFIXES:-${VULKAN_SDK:-} /usr /usr/local}
}

# Debian 13's Vulkan and SPIR-V headers, unpacked into the cache (only for TANDEM_GPU=vulkan, and only the
# headers and CMake files: the loader and glslc stay the system's). Prints the prefix or fails saying why.
fetch_vulkan_headers() {
  local folder=${TANDEM_CACHE:-$HOME/.cache/tandem}/vulkan-headers/debian-trixie
  if [ -f "$folder/usr/include/vulkan/vulkan_core.h" ]; then
    echo "$folder/usr"
    return
  fi
  if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
    echo "llama_wheel: the Vulkan build needs $vk_missing; install them (or the Vulkan SDK and set VULKAN_SDK)" >&2
    return 1
  fi
  echo "llama_wheel: fetching Debian 13's libvulkan-dev and spirv-headers into $folder" >&2
  local apt=$folder.apt mirror=${TANDEM_DEBIAN_MIRROR:-http://deb.debian.org/debian}
  rm -rf "$apt" "$folder.partial"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$folder.partial"
  echo "deb $mirror trixie main" >"$apt/sources.list"
  local options=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$apt/lists"
    -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root -o Debug::NoLocking=1)
  if ! apt-get "${options[@]}" update -qq >&2 ||
    ! (cd "$apt/debs" && apt-get "${options[@]}" download -qq libvulkan-dev spirv-headers >&2); then
    echo "llama_wheel: could not fetch Debian 13's Vulkan headers from $mirror; install $vk_missing" >&2
    return 1
  fi
  local deb
  for deb in "$apt"/debs/*.deb; do dpkg -x "$deb" "$folder.partial"; done
  rm -rf "$folder" "$apt"
  mv "$folder.partial" "$folder"
  echo "$folder/usr"
}

# For TANDEM_GPU=vulkan: what the build lacks, fetched where it can be; sets vulkan_cmake (the -D options
# that point CMake at what was found) or fails in one line before CMake does.
prepare_vulkan() {
  # shellcheck disable=SC2046  # a list of folders
  find_vulkan $(vulkan_prefixes)
  if [ -n "$vk_missing" ] && command -v glslc >/dev/null; then
    local fetched
    fetched=$(fetch_vulkan_headers) || exit 2
    # The fetched headers first; the loader is still the system's.
    # shellcheck disable=SC2046
    find_vulkan "$fetched" $(vulkan_prefixes)
  fi
  if [ -n "$vk_missing" ]; then
    echo "llama_wheel: TANDEM_GPU=vulkan, but the build needs $vk_missing; install them" >&2
    exit 2
  fi
  vulkan_cmake="-DVulkan_INCLUDE_DIR=$vk_include -DSPIRV-Headers_DIR=$vk_spirv -DVulkan_LIBRARY=$vk_loader"
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
      elif command -v glslc >/dev/null && find_vulkan $(vulkan_prefixes) && [ -z "$vk_missing" ]; then
        backend=vulkan why="glslc, the Vulkan and SPIR-V headers and the loader found"
      else
        backend=cpu why=""
        if command -v nvcc >/dev/null; then why="nvcc found but no NVIDIA GPU (nvidia-smi lists none)"; fi
        if command -v glslc >/dev/null; then
          # glslc says a Vulkan build was meant: say what else it needs rather than fail in CMake.
          echo "llama_wheel: a Vulkan build also needs $vk_missing; install them (TANDEM_GPU=vulkan" \
            "fetches the headers where it can); building for the CPU" >&2
          why="${why:+$why; }glslc found but not all the Vulkan build needs"
        fi
        why=${why:-no nvcc, glslc or Apple Silicon found}
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
    cuda)
      local archs
      archs=$(cuda_archs) || exit 2
      echo "-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=$archs$(cuda_gaps) $(default_args)"
      ;;
    vulkan) echo "-DGGML_VULKAN=on ${vulkan_cmake:-} $(default_args)" ;;
    metal) echo "-DGGML_METAL=on $(default_args)" ;;
  esac
}

# Turing to Blackwell as CUDA 13 compiles them (it dropped Maxwell, Pascal and Volta): machine
# code for each (-real) and PTX for the newest, which the driver compiles for later GPUs.
CUDA_ALL="75-real;80-real;86-real;89-real;90-real;100-real;120-real;120-virtual"

# The CUDA architectures: TANDEM_CUDA_ARCHS, else this machine's GPU (native), else all of them.
cuda_archs() {
  local archs=${TANDEM_CUDA_ARCHS:-}
  if [ -z "$archs" ]; then
    if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
      archs=native
    else
      archs=all
    fi
  fi
  if [ "$archs" = all ]; then
    echo "$CUDA_ALL"
    return
  fi
  [ "$archs" = native ] && { echo native; return; }
  local listed="" arch
  # An nvcc too old for --list-gpu-arch lists nothing: then nvcc itself judges the architectures.
  command -v nvcc >/dev/null && listed=$(nvcc --list-gpu-arch 2>/dev/null | grep -o 'compute_[0-9]*' | tr '\n' ' ')
  for arch in ${archs//;/ }; do
    if ! [[ $arch =~ ^[0-9]{2,3}[af]?(-real|-virtual)?$ ]]; then
      echo "llama_wheel: TANDEM_CUDA_ARCHS must be all, native or numbers such as 89 or 86;89, not '$archs'" >&2
      exit 2
    fi
    if [ -n "$listed" ] && [[ " $listed " != *" compute_${arch%%[af-]*} "* ]]; then
      echo "llama_wheel: this nvcc cannot compile for architecture ${arch%%[af-]*} (it lists: $listed)" >&2
      exit 2
    fi
  done
  echo "$archs"
}

# The toolkit's library folders (lib64, targets/<arch>-linux/lib and their stubs/).
cuda_lib_dirs() {
  local root
  root=$(cd "$(dirname "$(command -v nvcc)")/.." && pwd)
  echo "$root/lib64 $root/lib64/stubs $root/targets/$(uname -m)-linux/lib $root/targets/$(uname -m)-linux/lib/stubs"
}
cuda_has_lib() {
  local dir
  for dir in $(cuda_lib_dirs); do
    ls "$dir/$1".so* >/dev/null 2>&1 && return 0
  done
  [ "$1" = libcuda ] && ldconfig -p 2>/dev/null | grep -q 'libcuda\.so'
}
# What a toolkit installed without its libraries lacks, filled in (a compiler-only install, as here):
# cuBLAS from NVIDIA's PyPI package (the build links against it; the running app needs the same
# libraries from the driver's or toolkit's install), and without the driver library or its stub
# ggml's virtual-memory pool is left out (GGML_CUDA_NO_VMM). Nothing is added where nvcc is absent.
cuda_gaps() {
  command -v nvcc >/dev/null || return 0
  local major lib
  major=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9]*\)\..*/\1/p' | head -n 1)
  if ! cuda_has_lib libcublas; then
    lib="${TANDEM_CACHE:-$HOME/.cache/tandem}/cublas-cu$major/nvidia/cu$major"
    printf ' -DCUDA_cublas_LIBRARY=%s -DCUDA_cublasLt_LIBRARY=%s' \
      "$lib/lib/libcublas.so.$major" "$lib/lib/libcublasLt.so.$major"
  fi
  cuda_has_lib libcuda || printf ' -DGGML_CUDA_NO_VMM=ON'
  return 0
}
# cuBLAS for cuda_gaps, installed once beside the wheels.
cuda_fill_gaps() {
  local major folder
  [[ $args == *-DCUDA_cublas_LIBRARY=* ]] || return 0
  major=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9]*\)\..*/\1/p' | head -n 1)
  folder="$cache/cublas-cu$major"
  if [ ! -d "$folder/nvidia/cu$major/include" ]; then
    echo "llama_wheel: the CUDA toolkit has no cuBLAS: installing nvidia-cublas $major.x into $folder" >&2
    "$python_bin" -m pip install --quiet --no-deps --target "$folder" "nvidia-cublas>=$major,<$((major + 1))" >&2
  fi
  export CPATH="$folder/nvidia/cu$major/include${CPATH:+:$CPATH}"
}

# What else the build depends on: a CUDA build is kept per nvcc release and, for one
# architecture, per GPU kind.
backend_detail() {
  if [ "$backend" = cuda ]; then
    command -v nvcc >/dev/null && nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' | head -n 1
    if [[ $args == *ARCHITECTURES=native* ]] && command -v nvidia-smi >/dev/null; then
      nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | sort -u | tr '\n' ' '
    fi
  fi
  return 0
}

choose_backend
if [ "${1:-}" = "--backend" ]; then
  echo "$backend ($why)"
  exit 0
fi
vulkan_cmake=""
if [ "$backend" = vulkan ]; then prepare_vulkan; fi
args=$(backend_args)
if [ "${1:-}" = "--cmake-args" ]; then
  echo "$args"
  exit 0
fi
stamp_only=no
if [ "${1:-}" = "--stamp" ]; then
  stamp_only=yes
  shift
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
stamp=$(printf 'llama-cpp-python %s\nbackend %s\npython %s %s\ncmake-args %s\n' "$version" "$backend" "$tag" \
  "$(uname -m)" "$args"; [ "$backend" = cpu ] || printf 'detail %s\n' "$(backend_detail)")
if [ "$stamp_only" = yes ]; then
  printf '%s\n%s\n' "$out" "$stamp"
  exit 0
fi
if [ "$backend" = cuda ] && ! command -v nvcc >/dev/null; then
  echo "llama_wheel: TANDEM_GPU=cuda needs nvcc on PATH: install the CUDA toolkit (or put its bin/ on PATH)" >&2
  exit 2
fi
# A zip stores no symlinks, so the wheel holds each library under every name of the build tree (and again
# in its top-level lib/): scripts/wheel_libraries.py keeps the names llama_cpp opens and the libraries
# need, once each. libraries.txt says it was done (a wheel built before this step is repacked once).
store_once() {
  if [ ! -f "$1/libraries.txt" ]; then
    "$python_bin" scripts/wheel_libraries.py "$1"/llama_cpp_python-"$version"-*.whl 2>"$1/libraries.txt" || true
    cat "$1/libraries.txt" >&2
  fi
}
if ls "$out"/llama_cpp_python-"$version"-*.whl >/dev/null 2>&1; then
  echo "llama_wheel: llama-cpp-python $version, $backend backend ($why), built before" >&2
  store_once "$out"
  echo "$out"
  exit 0
fi
echo "llama_wheel: building llama-cpp-python $version for $tag, $backend backend ($why); about 6 minutes" \
  "on two cores for the CPU, longer for a GPU, once" >&2
mkdir -p "$cache/wheels"
partial=$(mktemp -d "$cache/wheels/.partial-XXXXXX")
trap 'rm -rf "$partial"' EXIT
[ "$backend" = cuda ] && cuda_fill_gaps
CMAKE_ARGS="$args" "$python_bin" -m pip wheel --quiet --no-deps --no-cache-dir --no-binary llama-cpp-python \
  --wheel-dir "$partial" "llama-cpp-python==$version" >&2
printf '%s\n' "$args" >"$partial/cmake-args.txt"
printf '%s\n' "$backend" >"$partial/backend.txt"
printf '%s\n' "$stamp" >"$partial/stamp.txt"
store_once "$partial"
rm -rf "$out"
mv "$partial" "$out" # atomic: a cut build never leaves a wheel that looks finished
trap - EXIT
echo "$out"
