#!/usr/bin/env bash
# Set everything up, then run the project's checks: ruff, the import contracts
# (app.core must not import Qt, llama.cpp or hardware libraries), mypy (the
# [tool.mypy] section of pyproject.toml says what it checks) and pytest, whose tests run
# in layers: pure (no model, window, process or packaging), gui, model, window (gui and
# model), subprocess, packaging. It stops at the first step or layer that fails, and
# prints each step's and each layer's wall time and the 30 slowest tests.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -k decoder`; one layer alone:
# `.venv/bin/python -m pytest -m pure` (the marks are model, gui, subprocess, packaging, vulkan
# and, for the layers, pure, window).
#
# On top of scripts/setup.sh (what the app runs) it installs the test tools (the `test`
# extra) and builds llama.cpp's llama-server, which the remote-engine tests run
# (scripts/build_llama_server.sh: once per llama-cpp-python version, about 10 minutes on two
# cores; TANDEM_SKIP_LLAMA_SERVER=1 skips it and those tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
venv=${TANDEM_VENV:-.venv}
# The test extra, once per set-up environment: the stamp holds setup's own stamp (the wheel
# folder), so a re-made environment or a changed pyproject.toml installs it again.
stamp="$venv/.tandem-test-installed"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || ! cmp -s "$venv/.tandem-installed" "$stamp"; then
  echo "test: installing the test tools"
  "$venv/bin/python" -m pip install --quiet --find-links "$(cat "$venv/.tandem-installed")" -e '.[test]'
  cp "$venv/.tandem-installed" "$stamp"
fi
if [ "${TANDEM_SKIP_LLAMA_SERVER:-0}" != 1 ]; then
  server=$(TANDEM_VENV="$venv" bash scripts/build_llama_server.sh | tail -n 1)
  # Which llama-server the remote-engine tests run: llama.cpp's own version line (its commit).
  echo "test: llama-server $server ($("$server" --version 2>&1 | grep -m 1 '^version' || echo 'no version line'))"
fi
export QT_QPA_PLATFORM=offscreen
timed() {
  local name=$1 start=$SECONDS
  shift
  echo "== $name"
  "$@"
  echo "== $name: $((SECONDS - start)) s"
}
timed ruff "$venv/bin/ruff" check app tests main.py
timed "import contracts" "$venv/bin/lint-imports"
timed mypy "$venv/bin/mypy"
# One pytest run, collected once, that runs the layers in order (tests/layers.py: pure, gui, model, window,
# subprocess, packaging), stops after the first layer with a failure, and ends with each layer's wall time
# and the 30 slowest tests. Two workers (pytest-xdist) share the layers' files: a test mostly waits on a
# model, a window or a process, and a model uses one thread on two cores (llama.cpp's default), so two keep
# both cores busy. TANDEM_TEST_WORKERS=0 runs it in this one process.
workers=${TANDEM_TEST_WORKERS:-2}
timed pytest "$venv/bin/python" -m pytest -n "$workers" --layer-stop --durations=30 --durations-min=1 "$@"
