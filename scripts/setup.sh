#!/usr/bin/env bash
# Installs everything the project needs on a fresh machine that has only Node.js 20+ and npm:
# system packages (bubblewrap for the sandbox; slurm-wlm and munge for the Slurm test) when
# running as root with apt, then the workspace's npm packages with the pinned pnpm. Safe to
# run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
command -v git >/dev/null 2>&1 || need_apt+=(git)
if [ "${#need_apt[@]}" -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${need_apt[*]} with apt-get" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "setup: missing ${need_apt[*]}; install it with your package manager (apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap)" >&2
  fi
fi

# A one-node Slurm for the job array test (packages/cli/src/commands/slurm-array.test.ts).
# Optional: where it cannot be installed (not root, no apt, no network) that test reports
# itself skipped, so a failed install never stops the setup.
has() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }
if ! has slurmctld || ! has slurmd || ! has munged; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing slurm-wlm and munge with apt-get (for the Slurm test)" >&2
    install_slurm() {
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null 2>&1
    }
    install_slurm || { DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 && install_slurm; } ||
      echo "setup: slurm-wlm and munge did not install; the Slurm test will report itself skipped" >&2
  else
    echo "setup: no slurm-wlm and munge (installed as root with apt); the Slurm test will report itself skipped" >&2
  fi
fi

# The sandbox's launcher (limits, uid drop and exec in one process: fewer exec hops per
# command). Needed by the privileged mode (as root): without a C compiler only the
# user-namespace mode works, with prlimit.
launcher=packages/sandbox/native/distdebug-launch
if command -v cc >/dev/null 2>&1; then
  cc -O2 -Wall -static -o "$launcher" packages/sandbox/native/launch.c 2>/dev/null ||
    cc -O2 -Wall -o "$launcher" packages/sandbox/native/launch.c ||
    echo "setup: the sandbox launcher did not build; as root the sandbox then needs mode user-namespace" >&2
else
  echo "setup: no C compiler (cc): the sandbox launcher was not built; as root the sandbox then needs mode user-namespace" >&2
fi

bash scripts/setup-browser.sh
bash scripts/setup-python.sh

bash scripts/pnpm.sh install --frozen-lockfile --reporter=append-only >&2
