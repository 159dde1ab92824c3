import { lstat, readdir, readFile } from "node:fs/promises";
import { isAbsolute, join, normalize } from "node:path";
import { DistDebugError, type Incident, readFileChecked } from "@distdebug/schema";
import type { DatasetProblem } from "../problems.js";

/** Why `path` (from incident.json) does not stay inside the incident folder, or undefined. */
export function outsideReason(path: string): string | undefined {
  if (isAbsolute(path)) return "an absolute path";
  if (path.split(/[\\/]/).includes("..")) return "a path with ..";
  return undefined;
}

/** One problem per symbolic link (or other non-file, non-folder entry) below an incident folder. */
export async function linkProblems(datasetDir: string, id: string): Promise<DatasetProblem[]> {
  const problems: DatasetProblem[] = [];
  const walk = async (relative: string): Promise<void> => {
    for (const entry of await readdir(join(datasetDir, relative), { withFileTypes: true })) {
      const path = `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isSymbolicLink())
        problems.push({
          file: path,
          message: "a symbolic link; an incident folder holds only regular files and folders",
        });
      else if (!entry.isFile())
        problems.push({ file: path, message: "a special file (FIFO, socket or device)" });
    }
  };
  await walk(id);
  return problems;
}

/** The files an agent sees: the report and every artifact, with where incident.json names them. */
function taskFiles(incident: Incident): { path: string; field: string }[] {
  return [
    { path: incident.report, field: "$.report" },
    ...incident.artifacts.map((artifact, index) => ({
      path: artifact.path,
      field: `$.artifacts[${index}].path`,
    })),
  ];
}

/**
 * One problem per report or artifact path that leaves the incident folder, is gold.json, or
 * has gold.json's bytes: any of them would hand the answer (or a host file) to the agent.
 */
export async function taskFileProblems(
  dir: string,
  id: string,
  incident: Incident,
): Promise<DatasetProblem[]> {
  const gold = await readFile(join(dir, "gold.json")).catch(() => undefined);
  const problems: DatasetProblem[] = [];
  for (const { path, field } of taskFiles(incident)) {
    const outside = outsideReason(path);
    if (outside) {
      problems.push({
        file: `${id}/incident.json`,
        path: field,
        message: `expected a path inside the incident folder, found ${JSON.stringify(path)}`,
      });
      continue;
    }
    if (normalize(path) === "gold.json") {
      problems.push({
        file: `${id}/incident.json`,
        path: field,
        message: "names gold.json: the agent would read the answer",
      });
      continue;
    }
    const bytes = await readFile(join(dir, path)).catch(() => undefined);
    if (gold && bytes && Buffer.compare(gold, bytes) === 0)
      problems.push({
        file: `${id}/${path}`,
        message: `has the same bytes as gold.json (named by incident.json ${field}): the agent would read the answer`,
      });
  }
  return problems;
}

/**
 * Reads a file of an incident folder for the agent's task view: the path must stay inside the
 * folder and no part of it may be a symbolic link (checked with lstat, so nothing outside the
 * incident folder, such as gold.json through a link or a host file, is ever read).
 *
 * @throws DistDebugError `INVALID_DATASET` for a path outside the folder or through a link.
 */
export async function readIncidentFile(dir: string, path: string): Promise<Buffer> {
  const refuse = (reason: string): never => {
    throw new DistDebugError({
      code: "INVALID_DATASET",
      message: `${join(dir, path)}: ${reason}; the task view is built only from regular files of the incident folder`,
    });
  };
  const outside = outsideReason(path);
  if (outside) refuse(outside);
  let current = dir;
  for (const part of normalize(path).split("/")) {
    current = join(current, part);
    const info = await lstat(current).catch(() => undefined);
    if (info?.isSymbolicLink()) refuse("a symbolic link");
  }
  return readFileChecked(join(dir, path));
}
