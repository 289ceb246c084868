#!/usr/bin/env bash
# Set everything up, then run the project's checks: ruff, the import contracts
# (app.core must not import Qt, llama.cpp or hardware libraries), mypy (the
# [tool.mypy] section of pyproject.toml says what it checks) and pytest.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -k decoder`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
venv=${TANDEM_VENV:-.venv}
export QT_QPA_PLATFORM=offscreen
echo "== ruff"
"$venv/bin/ruff" check app tests main.py
echo "== import contracts"
"$venv/bin/lint-imports"
echo "== mypy"
"$venv/bin/mypy"
echo "== pytest"
"$venv/bin/python" -m pytest "$@"
