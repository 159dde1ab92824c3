import { spawnSync } from "node:child_process";
import { chmod, cp, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { repoRoot, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";

const isRoot = process.getuid?.() === 0;
const packageDir = fileURLToPath(new URL("..", import.meta.url));

/**
 * A copy of this package (its sources and the built launcher) in a folder of mode 0700, as a
 * clone under `mktemp -d` or a private home folder: as root the user-namespace mode runs
 * bwrap as the sandbox uid, which cannot enter that folder.
 */
async function privateCopy(): Promise<string> {
  const root = await testdir();
  await chmod(root, 0o700);
  const copy = join(root, "sandbox");
  await cp(join(packageDir, "src"), join(copy, "src"), { recursive: true });
  await cp(join(packageDir, "native"), join(copy, "native"), {
    recursive: true,
    preserveTimestamps: true,
  });
  await cp(join(packageDir, "package.json"), join(copy, "package.json"));
  await symlink(join(packageDir, "node_modules"), join(copy, "node_modules"));
  return copy;
}

describe.runIf(isRoot)("a checkout in a folder of mode 0700", () => {
  it("runs commands in both modes (the launcher reaches bwrap through a descriptor, not a path)", {
    // Four node processes that load the package from source with tsx, two of which compile the
    // launcher: slow on a loaded machine.
    timeout: 240_000,
  }, async () => {
    const copy = await privateCopy();
    const workspace = await testdir();
    const script = `
      import { createSandbox } from ${JSON.stringify(join(copy, "src/index.ts"))};
      const sandbox = await createSandbox({ workspace: ${JSON.stringify(workspace)}, mode: process.argv[1] });
      const result = await sandbox.exec("echo ok");
      process.stdout.write(result.stdout);
    `;
    const run = (mode: string) =>
      spawnSync(
        process.execPath,
        [
          "--conditions=@distdebug/source",
          "--import",
          join(repoRoot, "node_modules/tsx/dist/loader.mjs"),
          "--input-type=module",
          "-e",
          script,
          mode,
        ],
        { encoding: "utf8", cwd: workspace },
      );
    for (const mode of ["user-namespace", "privileged"]) {
      const child = run(mode);
      expect(child.stderr, mode).toBe("");
      expect(child.stdout, mode).toBe("ok\n");
    }
    // A launcher older than its source (a pull without scripts/setup.sh) is not used: the
    // source is compiled afresh (as for an npm install, which ships launch.c only).
    await writeFile(join(copy, "native/distdebug-launch"), "#!/bin/sh\necho stale\nexit 3\n");
    const later = new Date(Date.now() + 60_000);
    await utimes(join(copy, "native/launch.c"), later, later);
    expect(run("privileged").stdout).toBe("ok\n");
    await rm(join(copy, "native/distdebug-launch"));
    expect(run("privileged").stdout).toBe("ok\n");
  });
});
