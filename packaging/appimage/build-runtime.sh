#!/usr/bin/env bash
# Compile the AppImage runtime (runtime.c) into OUT: libsquashfs and its decompressors linked in
# statically, so that it needs nothing but the C library; stripped, then marked as an AppImage of
# type 2 ("AI\x02" at byte 8 of the ELF header, in the identification's padding).
#
#   bash packaging/appimage/build-runtime.sh OUT
#
# Needs gcc and libsquashfs (apt: libsquashfs-dev, which brings the static compression libraries).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-runtime.sh OUT}
missing=()
command -v gcc >/dev/null || missing+=(gcc)
[ -f /usr/include/sqfs/super.h ] || missing+=(libsquashfs-dev)
if [ ${#missing[@]} -gt 0 ]; then
  echo "build-runtime: missing build tools; install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
gcc -O2 -Wall -Wextra -Werror -std=c11 -o "$out" "$here/runtime.c" \
  -Wl,-Bstatic -lsquashfs -lzstd -llzma -llz4 -lz -Wl,-Bdynamic -lpthread
strip "$out"
printf 'AI\002' | dd of="$out" bs=1 seek=8 conv=notrunc status=none
