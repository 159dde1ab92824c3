#!/usr/bin/env bash
# The main job on the bundled example dataset, offline, with no API key: the baseline agent
# runs every example incident three times (anonymized workspace, leakage check, sandbox,
# scoring), then `score` rescores the results and prints the leaderboard row.
set -euo pipefail
cd "$(dirname "$0")/.."
distdebug() { node --conditions=@distdebug/source --import ./node_modules/tsx/dist/loader.mjs packages/cli/src/bin.ts "$@"; }
distdebug validate examples/files/*.json examples/files/*.yaml configs/baseline/default.yaml
distdebug run --config configs/baseline/default.yaml --runs 3 --out results/baseline
distdebug score results/baseline --attempts 3
