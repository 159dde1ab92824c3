#!/usr/bin/env bash
# Python environment for the interop tests (JSON Schema validation with `jsonschema`, the real
# mini-swe-agent run as a `command` agent) and for the Python package python/distdebug-schema
# (installed from its folder, editable, with pytest to test it): a venv at .venv/ made with uv
# (installed with pip into .venv-tools/, ~15 s against ~90 s for pip alone). Safe to run again:
# it skips what is there.
# Without python3 it prints why and returns 0: those tests then report themselves skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

MINI_SWE_AGENT_VERSION=2.4.6
JSONSCHEMA_VERSION=4.26.0
PYTEST_VERSION=9.2.0
# The package's metadata is part of the stamp: a changed pyproject.toml reinstalls it.
package_hash=$(cksum < python/distdebug-schema/pyproject.toml | cut -d' ' -f1)
stamp=".venv/.distdebug-$MINI_SWE_AGENT_VERSION-$JSONSCHEMA_VERSION-$PYTEST_VERSION-$package_hash"

if ! command -v python3 >/dev/null 2>&1; then
  echo "setup: python3 not found; the Python interop tests will be skipped" >&2
  exit 0
fi
if [ -f "$stamp" ]; then exit 0; fi
if ! python3 -m venv --help >/dev/null 2>&1; then
  echo "setup: python3 has no venv module (apt-get install python3-venv); the Python interop tests will be skipped" >&2
  exit 0
fi
echo "setup: creating .venv with jsonschema $JSONSCHEMA_VERSION, mini-swe-agent $MINI_SWE_AGENT_VERSION, pytest $PYTEST_VERSION and python/distdebug-schema" >&2
[ -x .venv-tools/bin/uv ] || { python3 -m venv .venv-tools && .venv-tools/bin/pip install -q uv; }
rm -rf .venv
.venv-tools/bin/uv venv -q .venv --python "$(command -v python3)"
VIRTUAL_ENV="$PWD/.venv" .venv-tools/bin/uv pip install -q \
  "jsonschema==$JSONSCHEMA_VERSION" "mini-swe-agent==$MINI_SWE_AGENT_VERSION" \
  "pytest==$PYTEST_VERSION" -e ./python/distdebug-schema
touch "$stamp"
