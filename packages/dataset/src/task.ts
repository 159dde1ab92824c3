import { join } from "node:path";
import { type Artifact, type Language, writeFileAtomic } from "@distdebug/schema";
import { readIncidentFile } from "./internal/leak-rules.js";
import type { DatasetIncident } from "./types.js";

/** An artifact as the agent gets it: its name, kind and text. */
export interface TaskArtifact {
  /** Relative path, for example `logs/server-2.log`. */
  readonly path: string;
  readonly kind: Artifact["kind"];
  readonly description?: string;
  readonly content: string;
}

/**
 * What an agent is told about an incident: the report, the artifacts and what the workspace
 * holds. It carries contents, not paths into the dataset, and has no gold, fix, category or
 * clue information, so nothing reachable from it leads to the labels.
 */
export interface IncidentTask {
  /** For the harness only: the agent is given an opaque task id instead (see `writeAgentTaskFolder`). */
  readonly incidentId: string;
  readonly title: string;
  readonly system: string;
  /** The report (markdown). */
  readonly report: string;
  readonly artifacts: readonly TaskArtifact[];
  /** What the agent's workspace holds: the repository at the buggy revision, anonymized. */
  readonly workspace: { readonly languages: readonly Language[] };
}

/**
 * Builds the agent's view of an incident: copies of the report text and the artifacts' text,
 * read only as regular files inside the incident folder (never through a link, never `..`).
 *
 * @example
 * ```ts
 * const task = await incidentTask(dataset.incidents[0]!);
 * console.log(task.report.slice(0, 200), task.artifacts.map((artifact) => artifact.path));
 * ```
 */
export async function incidentTask(entry: DatasetIncident): Promise<IncidentTask> {
  const { incident } = entry;
  const read = async (path: string) => (await readIncidentFile(entry.dir, path)).toString("utf8");
  const artifacts: TaskArtifact[] = [];
  for (const artifact of incident.artifacts)
    artifacts.push({
      path: artifact.path,
      kind: artifact.kind,
      ...(artifact.description === undefined ? {} : { description: artifact.description }),
      content: await read(artifact.path),
    });
  return {
    incidentId: incident.id,
    title: incident.title,
    system: incident.system,
    report: await read(incident.report),
    artifacts,
    workspace: { languages: [...incident.languages] },
  };
}

/**
 * Writes a task's files into a folder an agent can read: `report.md` and each artifact at
 * its relative path. Files are written atomically.
 *
 * @example
 * ```ts
 * await writeTaskFiles(task, "/tmp/attempt-1/task");
 * ```
 */
export async function writeTaskFiles(task: IncidentTask, dir: string): Promise<string[]> {
  const written = ["report.md"];
  await writeFileAtomic(join(dir, "report.md"), task.report);
  for (const artifact of task.artifacts) {
    await writeFileAtomic(join(dir, artifact.path), artifact.content);
    written.push(artifact.path);
  }
  return written;
}
