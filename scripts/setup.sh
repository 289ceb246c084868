#!/usr/bin/env bash
# Set up Tandem on a fresh machine: a virtual environment with every dependency,
# and the small SmolLM2 model pair the tests use. Safe to run again: it only
# does what is missing.
#
# llama-cpp-python is compiled from source on first install (about 6 minutes
# on two cores). pip keeps the built wheel in its cache (~/.cache/pip), so later
# runs and fresh virtual environments reuse it: do not pass --no-cache-dir.
#
# Options (environment): PYTHON (default python3.11, else python3; 3.11 and 3.12 work),
# TANDEM_VENV (default .venv), TANDEM_SKIP_MODELS=1 to skip model installs,
# TANDEM_DEMO=0 to skip the Qwen demo pair (1.6 GB; the app's default pair),
# TANDEM_SKIP_LLAMA_SERVER=1 to skip building llama-server (its tests then skip).
set -euo pipefail
cd "$(dirname "$0")/.."

python_bin=${PYTHON:-$(command -v python3.11 || command -v python3)}
venv=${TANDEM_VENV:-.venv}

if [ ! -x "$venv/bin/python" ]; then
  echo "setup: creating $venv with $python_bin"
  "$python_bin" -m venv "$venv"
fi
stamp="$venv/.tandem-installed"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: installing dependencies (first llama-cpp-python build takes minutes)"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -e '.[test]'
  touch "$stamp"
fi
if [ "${TANDEM_SKIP_LLAMA_SERVER:-0}" != 1 ]; then
  # llama.cpp's own server, for the remote-engine tests and `bench --vs-llama-server`;
  # built once per llama-cpp-python version into ~/.cache/tandem (about 10 minutes).
  bash scripts/build_llama_server.sh >/dev/null
fi
if [ "${TANDEM_SKIP_MODELS:-0}" != 1 ]; then
  "$venv/bin/python" main.py models install-small
  if [ "${TANDEM_DEMO:-1}" = 1 ]; then
    "$venv/bin/python" main.py models install-demo
  fi
fi
