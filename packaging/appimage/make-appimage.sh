#!/usr/bin/env bash
# Make dist/Tandem-<version>-x86_64.AppImage from a built PyInstaller bundle (packaging/build.sh
# --appimage calls this after building the bundle).
#
#   bash packaging/appimage/make-appimage.sh BUNDLE_DIR OUT_DIR WORK_DIR
#
# The AppImage is packaging/appimage/runtime.c, compiled here, followed by a SquashFS image of
# the AppDir: AppRun, tandem.desktop, the icon and .DirIcon at the top; the bundle in
# usr/lib/tandem, a usr/bin/tandem link, the menu entry, hicolor icons and AppStream metainfo
# under usr/share. The runtime is built here because the usual AppImage runtime and appimagetool
# come only as downloads from GitHub, which no package registry carries (see
# packaging/README.md). Needs gcc, mksquashfs (apt: squashfs-tools) and libsquashfs
# (apt: libsquashfs-dev); .ci/run installs them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
packaging=$(dirname "$here")
root=$(dirname "$packaging")
bundle=${1:?usage: make-appimage.sh BUNDLE_DIR OUT_DIR WORK_DIR}
out_dir=${2:?usage: make-appimage.sh BUNDLE_DIR OUT_DIR WORK_DIR}
work=${3:?usage: make-appimage.sh BUNDLE_DIR OUT_DIR WORK_DIR}

command -v mksquashfs >/dev/null \
  || { echo "make-appimage: mksquashfs is missing; install it with: sudo apt-get install squashfs-tools" >&2; exit 1; }
[ -x "$bundle/Tandem" ] || { echo "make-appimage: no bundle at $bundle (run packaging/build.sh)" >&2; exit 1; }

started=$(date +%s)
version=$("$bundle/Tandem" --version | awk '{print $2}')
[ -n "$version" ] || { echo "make-appimage: $bundle/Tandem --version printed no version" >&2; exit 1; }
mkdir -p "$work" "$out_dir"

runtime=$work/runtime
bash "$here/build-runtime.sh" "$runtime"

appdir=$work/AppDir
rm -rf "$appdir"
mkdir -p "$appdir/usr/lib" "$appdir/usr/bin" "$appdir/usr/share/applications" "$appdir/usr/share/metainfo"
cp -a "$bundle" "$appdir/usr/lib/tandem"
rm -f "$appdir/usr/lib/tandem/install-desktop.sh"  # installs a folder bundle; the AppImage is one file
ln -s ../lib/tandem/Tandem "$appdir/usr/bin/tandem"
install -m 755 "$here/AppRun" "$appdir/AppRun"

# The menu entry: Exec names the command, as AppImage desktop integration tools expect (they
# rewrite it to the AppImage's path when they add the entry to the menu).
sed -e 's|"@EXEC@"|tandem|' -e '/^TryExec=/d' -e "s|@VERSION@|$version|g" -e '/^# /d' \
  "$packaging/tandem.desktop" > "$appdir/usr/share/applications/tandem.desktop"
echo "X-AppImage-Version=$version" >> "$appdir/usr/share/applications/tandem.desktop"
cp "$appdir/usr/share/applications/tandem.desktop" "$appdir/tandem.desktop"

icons=$root/resources/icons
for size in 16 32 48 64 128 256 512; do
  install -D -m 644 "$icons/tandem-$size.png" "$appdir/usr/share/icons/hicolor/${size}x${size}/apps/tandem.png"
done
install -D -m 644 "$icons/tandem.svg" "$appdir/usr/share/icons/hicolor/scalable/apps/tandem.svg"
cp "$icons/tandem-256.png" "$appdir/tandem.png"
ln -s tandem.png "$appdir/.DirIcon"

# AppImage tools look for usr/share/metainfo/<desktop file name>.appdata.xml.
sed -e "s|@VERSION@|$version|g" -e "s|@DATE@|$(date -u +%F)|g" \
  "$packaging/io.github.tandem.Tandem.metainfo.xml" > "$appdir/usr/share/metainfo/tandem.appdata.xml"

# zstd: fast to unpack (the first start unpacks the whole image) and close to xz in size.
squashfs=$work/Tandem.squashfs
rm -f "$squashfs"
mksquashfs "$appdir" "$squashfs" -comp zstd -Xcompression-level 15 -b 1M -root-owned -noappend -no-xattrs \
  -quiet -no-progress >/dev/null
image=$out_dir/Tandem-$version-x86_64.AppImage
cat "$runtime" "$squashfs" > "$image.tmp"
chmod 755 "$image.tmp"
mv "$image.tmp" "$image"
rm -f "$squashfs"
echo "make-appimage: $image ($(du -h "$image" | cut -f1), runtime $(stat -c %s "$runtime") bytes)" \
  "made in $(( $(date +%s) - started ))s"
