import { randomInt } from "node:crypto";
import { createServer, type Server } from "node:net";
import { DistDebugError, errorMessage } from "@distdebug/schema";

/** First uid of the range {@link leaseSandboxUser} hands out by default. */
export const SANDBOX_UID_FIRST = 1_500_000_000;
/** Size of the default range. */
export const SANDBOX_UID_COUNT = 65_536;

/** Options of {@link leaseSandboxUser}. */
export interface LeaseSandboxUserOptions {
  /** First uid of the range. Default {@link SANDBOX_UID_FIRST} (no account uses it on common systems). */
  first?: number;
  /** How many uids the range holds. Default {@link SANDBOX_UID_COUNT}. */
  count?: number;
}

/** A uid (and the gid of the same number) held by this process until {@link SandboxUserLease.release}. */
export interface SandboxUserLease {
  readonly uid: number;
  readonly gid: number;
  /** Gives the uid back; later calls do nothing. The uid is also freed when the process dies. */
  release(): Promise<void>;
}

/** The abstract Unix socket name that holds one uid (Linux: no file, gone with its process). */
function lockName(uid: number): string {
  return `\0distdebug-sandbox-uid-${uid}`;
}

function listen(server: Server, name: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      error.code === "EADDRINUSE" ? resolve(false) : reject(error);
    server.once("error", onError);
    server.listen(name, () => {
      server.off("error", onError);
      resolve(true);
    });
  });
}

/**
 * Takes an unused uid for one attempt's sandbox (as root, commands run as that uid: the
 * kernel counts RLIMIT_NPROC per uid, so a fork loop in one attempt cannot make another
 * attempt's forks fail, and files and the gateway socket of one attempt are closed to the
 * others). A uid is held by an abstract Unix socket named after it, so concurrent processes
 * on the host (in the same network namespace) never get the same uid, and a crashed process
 * frees its uids. Throws `SANDBOX_ERROR` when every uid of the range is held.
 *
 * @example
 * ```ts
 * const lease = await leaseSandboxUser();
 * try {
 *   const sandbox = await createSandbox({ workspace, policy: { user: { uid: lease.uid, gid: lease.gid } } });
 *   // ...
 * } finally {
 *   await lease.release();
 * }
 * ```
 */
export async function leaseSandboxUser(
  options: LeaseSandboxUserOptions = {},
): Promise<SandboxUserLease> {
  const first = options.first ?? SANDBOX_UID_FIRST;
  const count = options.count ?? SANDBOX_UID_COUNT;
  const start = randomInt(count);
  for (let offset = 0; offset < count; offset += 1) {
    const uid = first + ((start + offset) % count);
    const server = createServer();
    server.unref();
    let held: boolean;
    try {
      held = await listen(server, lockName(uid));
    } catch (error) {
      throw new DistDebugError({
        code: "SANDBOX_ERROR",
        message: `cannot hold a sandbox uid (abstract Unix socket): ${errorMessage(error)}`,
        cause: error,
      });
    }
    if (held) return heldLease(uid, server);
  }
  throw new DistDebugError({
    code: "SANDBOX_ERROR",
    message: `every sandbox uid of ${first}..${first + count - 1} is held by running attempts; lower the run's concurrency or wait`,
    data: { first, count },
  });
}

function heldLease(uid: number, server: Server): SandboxUserLease {
  let released: Promise<void> | undefined;
  return {
    uid,
    gid: uid,
    release() {
      released ??= new Promise<void>((resolve) => server.close(() => resolve()));
      return released;
    },
  };
}
