#!/usr/bin/env bash
# Check the AppImage and the .deb that `packaging/build.sh --appimage --deb` left in DIST_DIR:
# layout, validators, the self-test run from each, the window opening under Xvfb, and that both
# read the data folder a source checkout (or any earlier install) wrote. Exits non-zero at the
# first failure, saying which check failed. tests/packaging/test_linux_packages.py runs it, and
# so does the release workflow.
#
#   bash packaging/check-linux-packages.sh [DIST_DIR]     (default dist)
#
# TANDEM_VENV (default .venv) is the Python that runs the source checkout for the data check.
# TANDEM_DEB_INSTALL=1 also installs the .deb with dpkg -i (as root) and checks the installed
# copy, then removes it; without it the package is unpacked with dpkg-deb -x into a temp folder.
set -euo pipefail
cd "$(dirname "$0")/.."
dist=$(cd "${1:-dist}" && pwd)
py=$(cd "${TANDEM_VENV:-.venv}" && pwd)/bin/python
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check-linux-packages: FAILED: $*" >&2; exit 1; }
step() { echo "check-linux-packages: $*"; }
have() { command -v "$1" >/dev/null; }

version=$("$py" -c "import app; print(app.version())")
appimage=$dist/Tandem-$version-x86_64.AppImage
deb=$dist/tandem_${version}_amd64.deb
[ -f "$appimage" ] || fail "no $appimage"
[ -f "$deb" ] || fail "no $deb"
step "AppImage $(stat -c %s "$appimage") bytes, .deb $(stat -c %s "$deb") bytes"

# The self-test needs the models: the user's own models folder (or TANDEM_MODELS_DIR), read only.
# Everything else gets fresh cache, data and temporary folders, so nothing here reads or writes
# the user's chats or settings.
TANDEM_MODELS_DIR=$("$py" -c "from app.engine.paths import models_dir; print(models_dir())")
export TANDEM_MODELS_DIR
unset TANDEM_DATA_DIR
export XDG_CACHE_HOME=$tmp/cache XDG_DATA_HOME=$tmp/data XDG_CONFIG_HOME=$tmp/config TMPDIR=$tmp/tmpdir
mkdir -p "$TMPDIR"

validate_desktop() {
  if have desktop-file-validate; then desktop-file-validate "$1" || fail "desktop-file-validate $1"
  else step "desktop-file-validate not installed (apt: desktop-file-utils): skipped"; fi
}
validate_metainfo() {
  have appstreamcli || fail "appstreamcli is missing (apt: appstream)"
  appstreamcli validate --no-net "$1" || fail "appstreamcli validate $1"
}
# The window opens: started as a double click would (no arguments), under a virtual X display,
# a top-level window named Tandem must appear within a minute; then the app is stopped.
window_opens() {
  have xvfb-run || fail "xvfb-run is missing (apt: xvfb)"
  have xwininfo || fail "xwininfo is missing (apt: x11-utils)"
  local log=$tmp/window.log
  # shellcheck disable=SC2016  # expanded by the inner shell
  if ! QT_QPA_PLATFORM=xcb timeout 150 xvfb-run -a -s "-screen 0 1280x800x24" sh -c '
      "$@" >"$LOG" 2>&1 & app=$!
      for _ in $(seq 60); do
        if xwininfo -root -tree | grep -q "\"Tandem"; then kill $app; wait $app; exit 0; fi
        kill -0 $app 2>/dev/null || exit 3
        sleep 1
      done
      kill $app; exit 4' window-check "$@"; then
    tail -20 "$log" >&2
    fail "no Tandem window appeared for: $*"
  fi
  grep -q Traceback "$log" && { cat "$log" >&2; fail "a traceback while the window was open: $*"; }
  step "window opened: $*"
}
export LOG=$tmp/window.log

# ---- AppImage ----
[ "$(dd if="$appimage" bs=1 skip=8 count=3 status=none | od -An -c | tr -d ' ')" = 'AI002' ] \
  || fail "the AppImage lacks the type-2 magic bytes"
offset=$("$appimage" --appimage-offset)
[ "$(dd if="$appimage" bs=1 skip="$offset" count=4 status=none)" = hsqs ] \
  || fail "no SquashFS image at --appimage-offset $offset"
step "type-2 magic present; SquashFS at offset $offset"

(cd "$tmp" && "$appimage" --appimage-extract >/dev/null) || fail "--appimage-extract"
root=$tmp/squashfs-root
for path in AppRun tandem.desktop tandem.png .DirIcon usr/lib/tandem/Tandem usr/bin/tandem \
    usr/share/applications/tandem.desktop usr/share/icons/hicolor/256x256/apps/tandem.png \
    usr/share/icons/hicolor/scalable/apps/tandem.svg usr/share/metainfo/tandem.appdata.xml; do
  [ -e "$root/$path" ] || fail "the AppImage has no $path"
done
[ -x "$root/AppRun" ] || fail "AppRun is not executable"
validate_desktop "$root/tandem.desktop"
validate_metainfo "$root/usr/share/metainfo/tandem.appdata.xml"
[ "$("$root/AppRun" --version)" = "Tandem $version" ] || fail "the extracted AppRun --version"
(cd "$tmp" && "$appimage" --appimage-extract 'usr/share/metainfo/*' >/dev/null) || fail "extract with a pattern"
step "--appimage-extract: layout, desktop entry and metainfo valid"

"$appimage" --appimage-extract-and-run --selftest || fail "--appimage-extract-and-run --selftest"
[ -z "$(ls -A "$TMPDIR")" ] || fail "--appimage-extract-and-run left $(ls "$TMPDIR") behind in \$TMPDIR"
"$appimage" --selftest || fail "--selftest run from the file (unpacked into the cache)"
[ "$(find "$XDG_CACHE_HOME/appimage-run" -mindepth 1 -maxdepth 1 | wc -l)" = 1 ] \
  || fail "a plain start did not unpack into one cache folder"
step "--selftest passed from the AppImage (extract-and-run, and a plain start)"
window_opens "$appimage"

# ---- .deb ----
dpkg-deb -I "$deb" > "$tmp/deb-info" || fail "dpkg-deb -I"
for field in "Package: tandem" "Version: $version" "Architecture: amd64" "Depends: libc6"; do
  grep -q "^ $field" "$tmp/deb-info" || fail ".deb control lacks '$field'"
done
dpkg-deb -c "$deb" > "$tmp/deb-files" || fail "dpkg-deb -c"
for path in ./opt/tandem/Tandem ./usr/bin/tandem ./usr/share/applications/tandem.desktop \
    ./usr/share/icons/hicolor/48x48/apps/tandem.png ./usr/share/icons/hicolor/scalable/apps/tandem.svg \
    ./usr/share/metainfo/io.github.tandem.Tandem.metainfo.xml ./usr/share/doc/tandem/copyright; do
  grep -q " $path\( ->.*\)\?$" "$tmp/deb-files" || fail "the .deb has no $path"
done
if grep -qv ' root/root ' "$tmp/deb-files"; then fail "files in the .deb not owned by root"; fi
deb_root=$tmp/deb-root
dpkg-deb -x "$deb" "$deb_root"
validate_desktop "$deb_root/usr/share/applications/tandem.desktop"
validate_metainfo "$deb_root/usr/share/metainfo/io.github.tandem.Tandem.metainfo.xml"
[ "$(readlink "$deb_root/usr/bin/tandem")" = /opt/tandem/Tandem ] || fail "/usr/bin/tandem does not point at the bundle"
step ".deb: control fields, file list, desktop entry and metainfo valid"

if [ "${TANDEM_DEB_INSTALL:-0}" = 1 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo dpkg -i "$deb" || fail "dpkg -i"
  tandem_bin=/usr/bin/tandem
else
  tandem_bin=$deb_root/opt/tandem/Tandem
fi
"$tandem_bin" --selftest || fail "--selftest from the .deb ($tandem_bin)"
step "--selftest passed from the .deb ($tandem_bin)"
window_opens "$tandem_bin"

# ---- the data folder: what a source checkout (an older install) wrote is what both read ----
cat > "$tmp/chat.json" <<'JSON'
{"format": "tandem-conversation", "version": 1, "title": "Written by an earlier install",
 "messages": [{"role": "user", "content": "Is my data still here?"}]}
JSON
"$py" main.py chats import "$tmp/chat.json" >/dev/null || fail "the source checkout could not import a chat"
[ -d "$XDG_DATA_HOME/Tandem" ] || fail "the source checkout did not write to \$XDG_DATA_HOME/Tandem"
for runner in "$appimage" "$tandem_bin"; do
  "$runner" chats list | grep "Written by an earlier install" >/dev/null \
    || fail "$runner does not see the chat in $XDG_DATA_HOME/Tandem"
done
step "the AppImage and the .deb read the same data folder as the source checkout"

if [ "${TANDEM_DEB_INSTALL:-0}" = 1 ]; then
  $sudo dpkg -r tandem >/dev/null || fail "dpkg -r"
  [ ! -e /opt/tandem ] || fail "dpkg -r left /opt/tandem"
  [ -d "$XDG_DATA_HOME/Tandem" ] || fail "removing the package touched the data folder"
  step "dpkg -r removed the program and kept the data folder"
fi
step "all checks passed"
