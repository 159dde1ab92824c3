import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { access, lstat, mkdtemp, readFile, readlink, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Folders searched for the helper binaries (`prlimit`, `mount`...). */
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

/** Finds `prlimit`, `mount`, `umount` or `sh` among the system folders (they live in /usr or /bin, visible inside). */
export function findSystemTool(
  name: "prlimit" | "mount" | "umount" | "sh",
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
/** Its source, beside it in a checkout. */
const LAUNCHER_SOURCE = fileURLToPath(new URL("../../native/launch.c", import.meta.url));

let launcherBytes: Promise<Uint8Array | undefined> | undefined;

/**
 * The compiled launcher's bytes (limits, tmpfs inodes, uid drop and exec in one process),
 * read once: the one scripts/setup.sh built beside its source, else (an npm install ships
 * `native/launch.c` only, or the build is older than its source) one compiled now with the
 * machine's C compiler in a private temporary folder, read and removed (never a shared cache
 * another user could plant a binary in). Undefined without a C compiler, or with
 * `DISTDEBUG_SANDBOX_LAUNCHER=off`: then the privileged mode is refused and the
 * user-namespace mode uses `prlimit`. The sandbox hands the bytes to bwrap through a
 * descriptor, so no sandbox user needs to reach the install folder (a home of mode 0700).
 */
export function loadLauncher(): Promise<Uint8Array | undefined> {
  if (process.env.DISTDEBUG_SANDBOX_LAUNCHER === "off") return Promise.resolve(undefined);
  launcherBytes ??= (async () =>
    (await isExecutable(LAUNCHER_PATH)) && !(await olderThanSource())
      ? await readFile(LAUNCHER_PATH)
      : await compileLauncher())();
  return launcherBytes;
}

/**
 * True when `native/launch.c` changed after the launcher was built (a pull without rerunning
 * scripts/setup.sh): its arguments may differ, so it is not used.
 */
async function olderThanSource(): Promise<boolean> {
  const [binary, source] = await Promise.all([
    stat(LAUNCHER_PATH),
    stat(LAUNCHER_SOURCE).catch(() => undefined),
  ]);
  return source !== undefined && source.mtimeMs > binary.mtimeMs;
}

function compiles(args: readonly string[]): Promise<boolean> {
  return new Promise((resolve) => {
    execFile("cc", [...args], { timeout: 120_000 }, (error) => resolve(error === null));
  });
}

/** `native/launch.c` compiled as setup.sh does (static where the C library allows). */
async function compileLauncher(): Promise<Uint8Array | undefined> {
  if (!(await stat(LAUNCHER_SOURCE).catch(() => undefined))) return undefined;
  const dir = await mkdtemp(join(tmpdir(), "distdebug-launch-"));
  try {
    const out = join(dir, "distdebug-launch");
    for (const extra of [["-static"], []])
      if (await compiles(["-O2", "-Wall", ...extra, "-o", out, LAUNCHER_SOURCE]))
        return await readFile(out);
    return undefined;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Why the privileged mode is unavailable without the launcher, and the fix. */
export const NO_LAUNCHER = {
  reason: `the compiled launcher ${LAUNCHER_PATH} is missing or older than its source launch.c and no C compiler (cc) could build it, or DISTDEBUG_SANDBOX_LAUNCHER=off: as root nothing else may set the limits and drop the uid (a program it ran would run with every capability)`,
  fix: 'install a C compiler (apt-get install gcc) and run scripts/setup.sh, or use the user-namespace mode (mode "user-namespace")',
} as const;
