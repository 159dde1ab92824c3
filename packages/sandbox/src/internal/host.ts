import { constants } from "node:fs";
import { access, lstat, readlink } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Folders searched for the helper binaries `prlimit`, `setpriv` and `env`. */
const SYSTEM_BIN_DIRS = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"];

/** Returns the absolute path of an executable found in `dirs`, or undefined. */
export async function findExecutable(
  name: string,
  dirs: readonly string[],
): Promise<string | undefined> {
  if (name.includes("/")) return (await isExecutable(name)) ? name : undefined;
  for (const dir of dirs) {
    if (dir === "") continue;
    const path = join(dir, name);
    if (await isExecutable(path)) return path;
  }
  return undefined;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await lstat(path)).isDirectory() === false;
  } catch {
    return false;
  }
}

/** The folders of a PATH string. */
export function pathDirs(path: string | undefined): string[] {
  return (path ?? "").split(delimiter).filter((dir) => dir !== "");
}

/** Finds `prlimit`, `setpriv`, `env`, `mount`, `umount` or `sh` among the system folders (they live in /usr or /bin, visible inside). */
export function findSystemTool(
  name: "prlimit" | "setpriv" | "env" | "mount" | "umount" | "sh",
): Promise<string | undefined> {
  return findExecutable(name, SYSTEM_BIN_DIRS);
}

/** How one top-level system folder (`/bin`, `/lib64`...) looks on the host. */
export type RootEntry =
  | { path: string; kind: "symlink"; target: string }
  | { path: string; kind: "directory" };

const ROOT_ENTRIES = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

let rootLayout: Promise<RootEntry[]> | undefined;

/** The host's `/bin`, `/lib*`... as symlinks into /usr (merged /usr) or real folders. Cached. */
export function hostRootLayout(): Promise<RootEntry[]> {
  rootLayout ??= (async () => {
    const entries: RootEntry[] = [];
    for (const path of ROOT_ENTRIES) {
      try {
        const info = await lstat(path);
        if (info.isSymbolicLink())
          entries.push({ path, kind: "symlink", target: await readlink(path) });
        else if (info.isDirectory()) entries.push({ path, kind: "directory" });
      } catch {
        // Missing on this host: nothing to bind.
      }
    }
    return entries;
  })();
  return rootLayout;
}

/**
 * The `/etc` files a shell and common tools need (users, name service, dynamic loader,
 * Debian alternatives, time zone, CA certificates). No resolver configuration, no secrets.
 */
export const ETC_FILES = [
  "/etc/passwd",
  "/etc/group",
  "/etc/nsswitch.conf",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/alternatives",
  "/etc/localtime",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/mime.types",
] as const;

/** Where scripts/setup.sh builds the launcher (`native/launch.c`), beside `src` and `dist`. */
const LAUNCHER_PATH = fileURLToPath(new URL("../../native/distdebug-launch", import.meta.url));

/**
 * The compiled launcher (limits, uid drop and exec in one process), or undefined when it was
 * not built (no C compiler at setup): the sandbox then chains `prlimit`, `setpriv` and `env`.
 */
export async function findLauncher(): Promise<string | undefined> {
  if (process.env.DISTDEBUG_SANDBOX_LAUNCHER === "off") return undefined;
  return (await isExecutable(LAUNCHER_PATH)) ? LAUNCHER_PATH : undefined;
}
