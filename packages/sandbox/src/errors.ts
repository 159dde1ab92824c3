import { DistDebugError } from "@distdebug/schema";

/**
 * How to install bubblewrap on the common distributions.
 *
 * @example
 * ```ts
 * if (!probe.recommended) console.error(INSTALL_HINT);
 * ```
 */
export const INSTALL_HINT =
  "install bubblewrap: `sudo apt-get install -y bubblewrap` (Debian, Ubuntu), `sudo dnf install -y bubblewrap` (Fedora, RHEL), `sudo pacman -S bubblewrap` (Arch)";

/** A `SANDBOX_UNAVAILABLE` error that says why and what to do (default: how to install bubblewrap). */
export function sandboxUnavailable(reason: string, fix: string = INSTALL_HINT): DistDebugError {
  return new DistDebugError({
    code: "SANDBOX_UNAVAILABLE",
    message: `the bubblewrap sandbox is not available on this host: ${reason}. To fix: ${fix}. Run \`distdebug sandbox probe\` for details; for development only, the policy backend "no-sandbox" runs commands without isolation.`,
    data: { reason, fix },
  });
}

/** What to do when user namespaces are off. */
export const USERNS_HINT =
  "enable unprivileged user namespaces (`sysctl kernel.unprivileged_userns_clone=1`, `sysctl user.max_user_namespaces=15000`, or on Ubuntu 24.04 `sysctl kernel.apparmor_restrict_unprivileged_userns=0`), or run as root";

/** The error of a command started on a sandbox after `dispose()`. */
export function sandboxDisposed(): DistDebugError {
  return new DistDebugError({
    code: "SANDBOX_ERROR",
    message: "the sandbox was disposed; create a new one",
  });
}
