import { copyFile, cp, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { editIncidentJson, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { repoRoot } from "../testing/spawn-cli.js";

/** A one-incident copy of the example dataset (zklite-142), changed by `edit`. */
async function datasetCopy(edit: (incident: string) => Promise<void>): Promise<string> {
  const dir = await testdir();
  await cp(join(repoRoot, "examples/dataset/zklite-142"), join(dir, "zklite-142"), {
    recursive: true,
  });
  await writeFile(
    join(dir, "dataset.json"),
    JSON.stringify({
      format: "distdebug.dataset/1",
      name: "leak",
      version: "1",
      incidents: ["zklite-142"],
    }),
  );
  await edit(join(dir, "zklite-142"));
  return dir;
}

const artifactPath = (path: string) => (value: Record<string, unknown>) => {
  (value.artifacts as { path: string }[])[0]!.path = path;
};

describe("distdebug dataset check refuses a dataset that would leak its answers", () => {
  const cases: [string, (incident: string) => Promise<void>, string][] = [
    [
      "an artifact that is gold.json",
      (incident) => editIncidentJson(incident, artifactPath("gold.json")),
      "zklite-142/incident.json $.artifacts[0].path: names gold.json",
    ],
    [
      "an artifact with gold.json's bytes",
      (incident) => copyFile(join(incident, "gold.json"), join(incident, "logs/worker-a.log")),
      "zklite-142/logs/worker-a.log: has the same bytes as gold.json",
    ],
    [
      "an artifact linked to gold.json",
      async (incident) => {
        await rm(join(incident, "logs/worker-b.log"));
        await symlink("../gold.json", join(incident, "logs/worker-b.log"));
      },
      "zklite-142/logs/worker-b.log: a symbolic link",
    ],
    [
      "a report linked to a host file",
      async (incident) => {
        await rm(join(incident, "report.md"));
        await symlink("/etc/hostname", join(incident, "report.md"));
      },
      "zklite-142/report.md: a symbolic link",
    ],
    [
      "a link in the repository data",
      (incident) => symlink("/etc/passwd", join(incident, "repo/tree/passwd")),
      "zklite-142/repo/tree/passwd: a symbolic link",
    ],
    [
      "a report outside the folder",
      (incident) =>
        editIncidentJson(incident, (value) => {
          value.report = "../../etc/hostname";
        }),
      'zklite-142/incident.json $.report: expected a path inside the incident folder, found "../../etc/hostname"',
    ],
    [
      "an absolute artifact path",
      (incident) => editIncidentJson(incident, artifactPath("/etc/hostname")),
      'zklite-142/incident.json $.artifacts[0].path: expected a path inside the incident folder, found "/etc/hostname"',
    ],
  ];
  for (const [name, edit, line] of cases)
    it(name, async () => {
      const dir = await datasetCopy(edit);
      const io = captureIO();
      expect(await runCli(["dataset", "check", dir], io)).toBe(1);
      expect(io.out() + io.err()).toContain(line);
    });
});
