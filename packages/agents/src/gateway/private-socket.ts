import { chmod, chown, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The user allowed to connect to the gateway's socket (the uid the sandbox runs commands as). */
export interface SocketOwner {
  uid: number;
  gid: number;
}

/** A new folder for the gateway's socket, mode 0700: nobody else can list or traverse it. */
export async function createPrivateSocketDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "ddgw-"));
  await chmod(dir, 0o700);
  return dir;
}

/**
 * Restricts the socket to its owner: mode 0600 on the socket, and, when `owner` is given
 * (the sandbox's uid when the host runs as root), hands the socket and the gateway's own
 * folder (`dir`, left alone when undefined) to that user. Root keeps access; any other local
 * user gets EACCES on connect.
 */
export async function restrictSocket(
  socketPath: string,
  dir: string | undefined,
  owner: SocketOwner | undefined,
): Promise<void> {
  await chmod(socketPath, 0o600);
  if (owner === undefined) return;
  await chown(socketPath, owner.uid, owner.gid);
  if (dir !== undefined) await chown(dir, owner.uid, owner.gid);
}
