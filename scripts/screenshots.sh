#!/usr/bin/env bash
# Start the real app under a virtual X server, drive it through its main views
# and save PNG screenshots to docs/screenshots/ (see scripts/screenshots.py).
# Needs Debian's xvfb package (apt-get install -y xvfb) and the demo pair
# (python main.py models install-demo); pass --pair small for the SmolLM2 pair.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v xvfb-run >/dev/null; then
    echo "xvfb-run not found: apt-get install -y xvfb" >&2
    exit 2
fi
venv=${TANDEM_VENV:-.venv}
exec xvfb-run -a -s "-screen 0 1600x1000x24" "$venv/bin/python" scripts/screenshots.py "$@"
