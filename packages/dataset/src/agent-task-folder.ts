import { join } from "node:path";
import { formats, serialize, type TaskManifest, writeFileAtomic } from "@distdebug/schema";
import { type IncidentTask, writeTaskFiles } from "./task.js";

/**
 * Writes the folder an agent sees read-only at `/task`: the report, the artifacts and
 * `task.json` listing them. Built from an {@link IncidentTask}, so no gold, fix or clue
 * information can reach it.
 */
export async function writeAgentTaskFolder(task: IncidentTask, dir: string): Promise<TaskManifest> {
  await writeTaskFiles(task, dir);
  const manifest: TaskManifest = {
    format: "distdebug.task/1",
    id: task.incidentId,
    title: task.title,
    system: task.system,
    languages: [...task.workspace.languages],
    report: "report.md",
    artifacts: task.artifacts.map((artifact) => ({
      path: artifact.path,
      kind: artifact.kind,
      ...(artifact.description === undefined ? {} : { description: artifact.description }),
    })),
    workspace: "/workspace",
    output: "/output",
  };
  await writeFileAtomic(join(dir, formats.task.fileName), serialize(manifest));
  return manifest;
}
