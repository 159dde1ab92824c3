#!/usr/bin/env bash
# The main job on the bundled example data, offline, with no API key.
set -euo pipefail
cd "$(dirname "$0")/.."
distdebug() { node --conditions=@distdebug/source --import ./node_modules/tsx/dist/loader.mjs packages/cli/src/bin.ts "$@"; }
distdebug validate examples/files/*.json examples/files/*.yaml configs/baseline/default.yaml
