#!/usr/bin/env bash
# Set up what the app runs on a fresh machine: a virtual environment with the app's
# dependencies (not the test tools: scripts/test.sh adds those), the small SmolLM2 pair and
# the Qwen demo pair. It does not build llama-server: only the tests and
# `bench --vs-llama-server` use it, and they build it (scripts/build_llama_server.sh).
# Safe to run again: it only does what is missing.
#
# llama-cpp-python is compiled from source on first install (about 6 minutes
# on two cores) into ~/.cache/tandem/wheels (scripts/llama_wheel.sh), so later
# runs and fresh virtual environments reuse it. It uses the GPU backend it finds
# (CUDA, Vulkan, Metal; TANDEM_GPU=off for the CPU build) and says which; Vulkan only with
# everything its build needs, else one line says what to install and the build is for the CPU.
#
# Options (environment): PYTHON (default python3.11, else python3; 3.11, 3.12 and 3.13 work),
# TANDEM_VENV (default .venv), TANDEM_SKIP_MODELS=1 to skip model installs,
# TANDEM_DEMO=0 to skip the Qwen demo pair (1.6 GB; the app's default pair),
# TANDEM_GPU=off|cuda|vulkan|metal|auto (default auto: see scripts/llama_wheel.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

python_bin=${PYTHON:-$(command -v python3.11 || command -v python3)}
venv=${TANDEM_VENV:-.venv}

if [ ! -x "$venv/bin/python" ]; then
  echo "setup: creating $venv with $python_bin"
  "$python_bin" -m venv "$venv"
fi
stamp="$venv/.tandem-installed"
# llama-cpp-python comes from Tandem's own wheel cache, built once per version and options
# (scripts/llama_wheel.sh says why pip's cache is not enough); the stamp names that wheel,
# so a venv made with another build gets this one.
wheels=$(bash scripts/llama_wheel.sh "$venv/bin/python")
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ "$(cat "$stamp")" != "$wheels" ]; then
  echo "setup: installing dependencies"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet --find-links "$wheels" -e .
  "$venv/bin/python" -m pip install --quiet --no-deps --force-reinstall --no-index --find-links "$wheels" \
    "$(ls "$wheels"/llama_cpp_python-*.whl)"
  echo "$wheels" >"$stamp"
fi
# The window's translations: translations/tandem_<lang>*.ts compiled into app/ui/i18n/tandem_<lang>.qm,
# only when a .ts is newer than its .qm (app/ui/i18n/catalog.py; the bundle's spec and the tests call it too).
"$venv/bin/python" -m app.ui.i18n.catalog
if [ "${TANDEM_SKIP_MODELS:-0}" != 1 ]; then
  "$venv/bin/python" main.py models install-small
  if [ "${TANDEM_DEMO:-1}" = 1 ]; then
    "$venv/bin/python" main.py models install-demo
  fi
fi
