#!/usr/bin/env bash
# Make dist/tandem_<version>_amd64.deb from a built PyInstaller bundle (packaging/build.sh --deb
# calls this after building the bundle).
#
#   bash packaging/deb/make-deb.sh BUNDLE_DIR OUT_DIR WORK_DIR
#
# The package puts the bundle in /opt/tandem, a /usr/bin/tandem link, the menu entry
# /usr/share/applications/tandem.desktop, hicolor icons and AppStream metainfo
# (/usr/share/metainfo/io.github.tandem.Tandem.metainfo.xml). dpkg's triggers refresh the icon
# cache and the menu, so it needs no maintainer scripts. Models, chats and settings stay in each
# user's data folder (~/.local/share/Tandem): installing, upgrading or removing the package never
# touches them. Built with dpkg-deb --root-owner-group, so no fakeroot is needed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
packaging=$(dirname "$here")
root=$(dirname "$packaging")
bundle=${1:?usage: make-deb.sh BUNDLE_DIR OUT_DIR WORK_DIR}
out_dir=${2:?usage: make-deb.sh BUNDLE_DIR OUT_DIR WORK_DIR}
work=${3:?usage: make-deb.sh BUNDLE_DIR OUT_DIR WORK_DIR}

command -v dpkg-deb >/dev/null || { echo "make-deb: dpkg-deb is missing (apt: dpkg)" >&2; exit 1; }
[ -x "$bundle/Tandem" ] || { echo "make-deb: no bundle at $bundle (run packaging/build.sh)" >&2; exit 1; }

started=$(date +%s)
version=$("$bundle/Tandem" --version | awk '{print $2}')
[ -n "$version" ] || { echo "make-deb: $bundle/Tandem --version printed no version" >&2; exit 1; }
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)

tree=$work/deb-root
rm -rf "$tree"
mkdir -p "$tree/DEBIAN" "$tree/opt" "$tree/usr/bin" "$tree/usr/share/applications" \
  "$tree/usr/share/metainfo" "$tree/usr/share/doc/tandem"
cp -a "$bundle" "$tree/opt/tandem"
rm -f "$tree/opt/tandem/install-desktop.sh"  # for folder bundles; dpkg installs this one
ln -s /opt/tandem/Tandem "$tree/usr/bin/tandem"

sed -e 's|@EXEC@|/usr/bin/tandem|g' -e "s|@VERSION@|$version|g" -e '/^# /d' \
  "$packaging/tandem.desktop" > "$tree/usr/share/applications/tandem.desktop"
icons=$root/resources/icons
for size in 16 32 48 64 128 256 512; do
  install -D -m 644 "$icons/tandem-$size.png" "$tree/usr/share/icons/hicolor/${size}x${size}/apps/tandem.png"
done
install -D -m 644 "$icons/tandem.svg" "$tree/usr/share/icons/hicolor/scalable/apps/tandem.svg"
sed -e "s|@VERSION@|$version|g" -e "s|@DATE@|$(date -u +%F)|g" \
  "$packaging/io.github.tandem.Tandem.metainfo.xml" > "$tree/usr/share/metainfo/io.github.tandem.Tandem.metainfo.xml"
cat > "$tree/usr/share/doc/tandem/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: Tandem
Comment: /opt/tandem bundles Python, Qt (PySide6, LGPL-3.0), llama.cpp (MIT), NumPy (BSD-3-Clause)
 and the other libraries listed in /opt/tandem/_internal/*.dist-info, each under its own license.

Files: *
License: MIT
COPYRIGHT

# What the bundle loads from the system rather than carrying (the NEEDED entries of its
# libraries that it does not ship): the C library at least as new as the build machine's, the
# GL/EGL dispatch libraries and libxcb; fontconfig's configuration for the bundled libfontconfig.
# Qt's Wayland plugin also wants the Wayland client libraries; X11 (or XWayland) works without.
glibc=$(ldd --version 2>/dev/null | awk 'NR == 1 { print $NF }')
depends="libc6 (>= $glibc), libgl1, libegl1, libxcb1, fontconfig-config"
recommends="fonts-dejavu-core, libwayland-client0, libwayland-cursor0, libwayland-egl1"
installed_kb=$(du -sk --exclude=DEBIAN "$tree" | cut -f1)
cat > "$tree/DEBIAN/control" <<CONTROL
Package: tandem
Version: $version
Architecture: $arch
Maintainer: ${DEB_MAINTAINER:-The Tandem developers <tandem@example.invalid>}
Installed-Size: $installed_kb
Depends: $depends
Recommends: $recommends
Section: utils
Priority: optional
Description: offline chat with local GGUF models and visible speculative decoding
 Tandem is a desktop chat app for language models in GGUF files that runs
 entirely on this computer. A small draft model proposes tokens and the large
 target model checks them in one pass, so replies come faster with exactly the
 target's output.
 .
 Models, chats and settings live in each user's ~/.local/share/Tandem and are
 kept when the package is upgraded or removed.
CONTROL
find "$tree" -type d -exec chmod 755 {} +

mkdir -p "$out_dir"
deb=$out_dir/tandem_${version}_${arch}.deb
# zstd level 6 by default: measured here on the 237 MiB bundle, it made 89 MiB in 12 s, where
# xz (level 6) made 71 MiB in almost 7 minutes and zstd 19 76 MiB in 10 (2 busy cores). Every
# dpkg that can run the bundle (glibc 2.35 or newer: Debian 12, Ubuntu 22.04) reads zstd.
# DEB_COMPRESSION=xz (the release workflow's choice) gives the smaller file; DEB_LEVEL the level.
dpkg-deb --root-owner-group "-Z${DEB_COMPRESSION:-zstd}" "-z${DEB_LEVEL:-6}" --build "$tree" "$deb.tmp" >/dev/null
mv "$deb.tmp" "$deb"
rm -rf "$tree"
echo "make-deb: $deb ($(du -h "$deb" | cut -f1), installs $((installed_kb / 1024)) MiB) made in" \
  "$(( $(date +%s) - started ))s"
