import { join } from "node:path";
import { writeFileAtomic } from "@distdebug/schema";
import { type IncidentTask, writeTaskFiles } from "./dataset/task.js";

/** `task.json`, at `/task/task.json` inside the sandbox: the index of the task folder. */
export interface TaskManifest {
  id: string;
  title: string;
  system: string;
  languages: string[];
  /** The report, relative to the task folder. */
  report: "report.md";
  artifacts: { path: string; kind: string; description?: string }[];
  /** Where the repository is inside the sandbox. */
  workspace: "/workspace";
  /** Where the agent writes diagnosis.json and trajectory.json. */
  output: "/output";
}

/**
 * Writes the folder an agent sees read-only at `/task`: the report, the artifacts and
 * `task.json` listing them. Built from an {@link IncidentTask}, so no gold, fix or clue
 * information can reach it.
 */
export async function writeAgentTaskFolder(task: IncidentTask, dir: string): Promise<TaskManifest> {
  await writeTaskFiles(task, dir);
  const manifest: TaskManifest = {
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
  await writeFileAtomic(join(dir, "task.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
