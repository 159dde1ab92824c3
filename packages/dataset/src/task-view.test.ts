import { cp, lstat, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DistDebugError } from "@distdebug/schema";
import { exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { writeAgentTaskFolder } from "./agent-task-folder.js";
import { loadDataset } from "./load-dataset.js";
import { incidentTask } from "./task.js";

async function oneIncident(): Promise<string> {
  const dir = await testdir();
  await cp(join(exampleDatasetDir(), "zklite-142"), join(dir, "zklite-142"), { recursive: true });
  await writeFile(
    join(dir, "dataset.json"),
    JSON.stringify({
      format: "distdebug.dataset/1",
      name: "t",
      version: "1",
      incidents: ["zklite-142"],
    }),
  );
  return dir;
}

async function everyEntry(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    out.push(path);
    if (entry.isDirectory()) out.push(...(await everyEntry(dir, path)));
  }
  return out;
}

describe("the agent's /task folder", () => {
  it("is built from copies: only regular files and folders, never links", async () => {
    const dataset = await loadDataset(await oneIncident());
    const out = await testdir();
    await writeAgentTaskFolder(await incidentTask(dataset.incidents[0]!), out);
    const entries = await everyEntry(out);
    expect(entries).toContain("logs/worker-a.log");
    for (const entry of entries) {
      const info = await lstat(join(out, entry));
      expect(info.isFile() || info.isDirectory()).toBe(true);
    }
  });

  it("refuses an artifact that became a link to gold.json after the dataset was checked", async () => {
    const dir = await oneIncident();
    const dataset = await loadDataset(dir);
    await rm(join(dir, "zklite-142/logs/worker-a.log"));
    await symlink("../gold.json", join(dir, "zklite-142/logs/worker-a.log"));
    const error = await incidentTask(dataset.incidents[0]!).catch((caught: unknown) => caught);
    expect(DistDebugError.isInstance(error) && error.code).toBe("INVALID_DATASET");
    expect((error as Error).message).toContain("zklite-142/logs/worker-a.log: a symbolic link");
  });

  it("refuses a folder of the report path that is a link", async () => {
    const dir = await oneIncident();
    const dataset = await loadDataset(dir);
    await rm(join(dir, "zklite-142/logs"), { recursive: true });
    await symlink("/etc", join(dir, "zklite-142/logs"));
    await expect(incidentTask(dataset.incidents[0]!)).rejects.toThrow(
      /zklite-142\/logs\/zklite-server-1\.log: a symbolic link/,
    );
  });
});
