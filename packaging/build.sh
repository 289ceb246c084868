#!/usr/bin/env bash
# Build the double-click bundle: dist/Tandem/Tandem plus its _internal folder; on Linux, also
# the one-file downloads made from it.
#
#   bash packaging/build.sh            # build, then run the bundle's self-test
#   bash packaging/build.sh --appimage # ... then dist/Tandem-<version>-x86_64.AppImage
#   bash packaging/build.sh --deb      # ... then dist/tandem_<version>_amd64.deb (both flags: both)
#   SKIP_SELFTEST=1 bash packaging/build.sh
#   REUSE_BUNDLE=1 bash packaging/build.sh --appimage   # package the existing dist/Tandem
#
# packaging/appimage/make-appimage.sh and packaging/deb/make-deb.sh do the packaging (they say
# which apt packages they need); packaging/check-linux-packages.sh checks what they made.
# It uses the project's virtual environment (TANDEM_VENV, default .venv),
# creating it through scripts/setup.sh when missing, and installs the
# `package` extra from pyproject.toml (PyInstaller) into it. Output goes to
# DIST_DIR (default dist) with PyInstaller's work files in WORK_DIR (default
# build/pyinstaller). Prints the bundle's size and the build time at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

appimage=0
deb=0
for arg in "$@"; do
  case $arg in
    --appimage) appimage=1 ;;
    --deb) deb=1 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "build: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done

venv=${TANDEM_VENV:-.venv}
dist_dir=${DIST_DIR:-dist}
work_dir=${WORK_DIR:-build/pyinstaller}

if [ ! -x "$venv/bin/python" ]; then
  echo "build: no virtual environment at $venv; creating it with scripts/setup.sh"
  TANDEM_SKIP_MODELS=1 TANDEM_VENV=$venv bash scripts/setup.sh
fi
py=$venv/bin/python

# Install exactly what the `package` extra lists, read from pyproject.toml so
# the version constraints live in one place.
if ! "$py" -c "import PyInstaller" 2>/dev/null; then
  echo "build: installing the packaging tools (the 'package' extra)"
  mapfile -t requirements < <("$py" - <<'PY'
import tomllib
with open("pyproject.toml", "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["optional-dependencies"]["package"]))
PY
)
  "$py" -m pip install --quiet "${requirements[@]}"
fi

bundle=$dist_dir/Tandem
if [ "${REUSE_BUNDLE:-0}" = 1 ] && [ -x "$bundle/Tandem" ]; then
  echo "build: REUSE_BUNDLE=1: packaging the existing $bundle"
else
  started=$(date +%s)
  "$py" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$dist_dir" --workpath "$work_dir" packaging/tandem.spec
  cp packaging/install-desktop.sh "$dist_dir/Tandem/install-desktop.sh"
  elapsed=$(( $(date +%s) - started ))
  echo "build: $bundle/Tandem built in ${elapsed}s; bundle size $(du -sh "$bundle" | cut -f1)" \
    "($(find "$bundle" -type f | wc -l) files)"
fi

if [ "${SKIP_SELFTEST:-0}" != 1 ]; then
  echo "build: running the bundle's self-test"
  if ! "$bundle/Tandem" --selftest; then
    echo "build: the bundle was built but its self-test failed (models missing? run"\
      "'$py main.py models install-small')" >&2
    exit 1
  fi
fi
if [ "$appimage" = 1 ]; then
  bash packaging/appimage/make-appimage.sh "$bundle" "$dist_dir" "$work_dir"
fi
if [ "$deb" = 1 ]; then
  bash packaging/deb/make-deb.sh "$bundle" "$dist_dir" "$work_dir"
fi
echo "build: install it as a desktop app with: bash packaging/install-desktop.sh"
