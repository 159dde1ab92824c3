#!/usr/bin/env bash
# Installs the headless browser the report's browser tests drive: Debian's `chromium`
# (launched by playwright-core from /usr/bin/chromium; playwright downloads nothing).
# Runs apt-get only as root with apt; otherwise says what to install. Safe to run again.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup-browser: installing chromium with apt-get" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "setup-browser: chromium is missing; install it (apt-get install chromium) or set DISTDEBUG_CHROMIUM to a Chromium binary" >&2
fi
