#!/usr/bin/env bash
# Set everything up, then run the project's checks: ruff, the import contracts
# (app.core must not import Qt, llama.cpp or hardware libraries), mypy (the
# [tool.mypy] section of pyproject.toml says what it checks) and pytest.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -k decoder`.
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
echo "== ruff"
"$venv/bin/ruff" check app tests main.py
echo "== import contracts"
"$venv/bin/lint-imports"
echo "== mypy"
"$venv/bin/mypy"
echo "== pytest"
"$venv/bin/python" -m pytest "$@"
