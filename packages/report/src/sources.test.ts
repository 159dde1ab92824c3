import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { folderSources } from "./sources.js";

describe("folderSources", () => {
  it("reads files inside the incident's folder only, and none over the size cap", async () => {
    const dir = await testdir({
      "workspace/src/Server.java": "class Server {}\n",
      "workspace/big.txt": "x".repeat(2000),
      "secret.txt": "outside\n",
    });
    const workspace = join(dir, "workspace");
    await symlink(join(dir, "secret.txt"), join(workspace, "src/link.txt"));
    await symlink(dir, join(workspace, "up"));
    await mkdir(join(workspace, "empty"));
    const sources = folderSources({
      workspaceDir: async (incidentId) => (incidentId === "zklite-142" ? workspace : undefined),
      maxSourceBytes: 1000,
    });
    const read = (path: string, incidentId = "zklite-142") => sources.readSource(incidentId, path);

    expect(await read("src/Server.java")).toBe("class Server {}\n");
    expect(await read("./src/../src/Server.java")).toBe("class Server {}\n");
    expect(await read("src/Server.java", "other-1")).toBeUndefined();
    // A path or a link that leads out of the folder, and what is not a file within the cap.
    for (const path of [
      "../secret.txt",
      join(dir, "secret.txt"),
      "src/link.txt",
      "up/secret.txt",
      "big.txt",
      "empty",
      "src/missing.java",
    ])
      expect(await read(path), path).toBeUndefined();
    expect(sources.gold).toBeUndefined();
  });

  it("passes the gold blocks through, and reads up to 2 MiB by default", async () => {
    const dir = await testdir();
    await writeFile(join(dir, "large.txt"), "y".repeat(2 * 1024 * 1024));
    await writeFile(join(dir, "huge.txt"), "y".repeat(2 * 1024 * 1024 + 1));
    const block = { path: "large.txt", startLine: 1, endLine: 1, note: "the cause" };
    const sources = folderSources({
      workspaceDir: async () => dir,
      gold: async (incidentId) => (incidentId === "zklite-142" ? [block] : undefined),
    });
    expect((await sources.readSource("zklite-142", "large.txt"))?.length).toBe(2 * 1024 * 1024);
    expect(await sources.readSource("zklite-142", "huge.txt")).toBeUndefined();
    expect(await sources.gold?.("zklite-142")).toEqual([block]);
    expect(await sources.gold?.("other-1")).toBeUndefined();
  });
});
