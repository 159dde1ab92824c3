import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, test } from "vitest";

const buildScript = fileURLToPath(new URL("../native/build.mjs", import.meta.url));

describe("the install script of the native collector", () => {
  let dir: string;
  let fakeNodeGyp: string;
  let marker: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "distdebug-native-build-"));
    marker = join(dir, "ran");
    fakeNodeGyp = join(dir, "node-gyp.js");
    // A node-gyp that fails the way a machine without a compiler does.
    await writeFile(
      fakeNodeGyp,
      `require("node:fs").writeFileSync(${JSON.stringify(marker)}, process.argv.slice(2).join(" "));
process.stderr.write("gyp ERR! stack Error: not found: make\\ngyp ERR! not ok\\n");
process.exit(1);
`,
    );
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const run = (env: Record<string, string>) =>
    spawnSync(process.execPath, [buildScript], {
      encoding: "utf8",
      env: { ...process.env, npm_config_node_gyp: fakeNodeGyp, ...env },
    });

  test("a failed build leaves the install successful, with one warning naming the cause", () => {
    const result = run({});
    expect(result.status).toBe(0);
    expect(existsSync(marker)).toBe(true);
    expect(result.stderr).toContain("the native collector was not built");
    expect(result.stderr).toContain("gyp ERR! not ok");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  test("DISTDEBUG_SKIP_NATIVE=1 does not run node-gyp", () => {
    const result = run({ DISTDEBUG_SKIP_NATIVE: "1" });
    expect(result.status).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(result.stderr).toBe("");
  });
});
