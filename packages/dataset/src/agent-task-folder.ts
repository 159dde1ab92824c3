import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { formats, serialize, type TaskManifest, writeFileAtomic } from "@distdebug/schema";
import { type IncidentTask, writeTaskFiles } from "./task.js";

/**
 * A fresh opaque id for one attempt's task (`task-` and 16 random hex digits): what the agent
 * is told instead of the incident id, in `task.json`, `DISTDEBUG_INCIDENT_ID`, prompts and
 * folder names. It says nothing of the incident (a catalog id is `<project>-<issue>`, from
 * which a model can recall the issue and its fix) and differs on every attempt.
 *
 * @example
 * ```ts
 * opaqueTaskId(); // "task-3f9a1c2b7d4e5a60"
 * ```
 */
export function opaqueTaskId(): string {
  return `task-${randomBytes(8).toString("hex")}`;
}

/** Options of {@link writeAgentTaskFolder}. */
export interface AgentTaskFolderOptions {
  /** The id `task.json` gives the agent. Default a fresh {@link opaqueTaskId}; never the incident id. */
  taskId?: string;
}

/**
 * Writes the folder an agent sees read-only at `/task`: the report, the artifacts and
 * `task.json` listing them. Built from an {@link IncidentTask}, so no gold, fix or clue
 * information can reach it; `task.json`'s `id` is an opaque task id, not the incident's.
 *
 * @example
 * ```ts
 * const taskId = opaqueTaskId();
 * await writeAgentTaskFolder(task, "/tmp/attempt-1/task", { taskId });
 * ```
 */
export async function writeAgentTaskFolder(
  task: IncidentTask,
  dir: string,
  options: AgentTaskFolderOptions = {},
): Promise<TaskManifest> {
  await writeTaskFiles(task, dir);
  const manifest: TaskManifest = {
    format: "distdebug.task/1",
    id: options.taskId ?? opaqueTaskId(),
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
