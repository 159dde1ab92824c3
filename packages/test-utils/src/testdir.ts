import { mkdirSync, rmSync } from "node:fs";
import { chmod, mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { onTestFinished } from "vitest";

const created = new Set<string>();
let exitHook = false;

/** A file to create: text or bytes, or an object with a mode, or a symlink. */
export type FixtureEntry =
  | string
  | Uint8Array
  | { content: string | Uint8Array; mode?: number }
  | { symlink: string };

/** Files to create, by POSIX path relative to the folder. */
export type FixtureFiles = Record<string, FixtureEntry>;

/** Removes a folder now and forgets it. */
export function removeTestdir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  created.delete(dir);
}

function track(dir: string): void {
  created.add(dir);
  if (!exitHook) {
    exitHook = true;
    process.on("exit", () => {
      for (const path of created) rmSync(path, { recursive: true, force: true });
    });
  }
  try {
    onTestFinished(() => removeTestdir(dir));
  } catch {
    // Outside a running test (beforeAll, module scope): removed when the process exits.
  }
}

/** Writes fixture files below `dir`, creating folders as needed. */
export async function writeFixtureFiles(dir: string, files: FixtureFiles): Promise<void> {
  for (const [path, entry] of Object.entries(files)) {
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true });
    if (typeof entry === "object" && "symlink" in entry) {
      await symlink(entry.symlink, target);
    } else if (typeof entry === "string" || entry instanceof Uint8Array) {
      await writeFile(target, entry);
    } else {
      await writeFile(target, entry.content);
      if (entry.mode !== undefined) await chmod(target, entry.mode);
    }
  }
}

/**
 * Creates a fresh temporary folder with the given files. It is removed when the current test
 * finishes (or, outside a test, when the process exits).
 *
 * @example
 * ```ts
 * const dir = await testdir({ "src/a.go": "package a\n" });
 * ```
 */
export async function testdir(files: FixtureFiles = {}): Promise<string> {
  const base = join(tmpdir(), "distdebug-test");
  mkdirSync(base, { recursive: true });
  const dir = await mkdtemp(join(base, "t-"));
  track(dir);
  await writeFixtureFiles(dir, files);
  return dir;
}
