#!/usr/bin/env bash
# Runs the pinned pnpm (10.34.9; pnpm 11 crashes on Node 20) whether or not pnpm is installed.
set -euo pipefail
if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "10.34.9" ]; then
  exec pnpm "$@"
fi
exec npx -y pnpm@10.34.9 "$@"
