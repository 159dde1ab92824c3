import { stat } from "node:fs/promises";
import { join } from "node:path";
import {
  type Gold,
  type Incident,
  type Language,
  parseGold,
  parseIncident,
  parseRepoHistory,
  readFileChecked,
} from "@distdebug/schema";
import type { DatasetProblem } from "../problems.js";
import type { IncidentRepositorySource } from "../types.js";
import { problemsOf, readTree } from "./files.js";
import { linkProblems, outsideReason, taskFileProblems } from "./leak-rules.js";
import { type ReplayResult, replayHistory } from "./replay.js";

/** What checking one incident folder found. */
export interface IncidentCheck {
  incident?: Incident;
  gold?: Gold;
  repository?: IncidentRepositorySource;
  /** gold.json exists (valid or not). */
  goldPresent: boolean;
  problems: DatasetProblem[];
}

const extensions: Record<string, Language> = {
  java: "java",
  go: "go",
  rs: "rust",
  py: "python",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hpp: "cpp",
  hh: "cpp",
  scala: "scala",
  c: "c",
  h: "c",
};

async function exists(path: string): Promise<"file" | "dir" | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? "file" : info.isDirectory() ? "dir" : undefined;
  } catch {
    return undefined;
  }
}

/** The report is missing or empty (a path outside the folder is named by taskFileProblems). */
async function reportProblems(dir: string, id: string, path: string): Promise<DatasetProblem[]> {
  if (outsideReason(path)) return [];
  const report = join(dir, path);
  if ((await exists(report)) !== "file")
    return [
      { file: `${id}/${path}`, message: "the report named by incident.json $.report is missing" },
    ];
  if ((await readFileChecked(report)).toString("utf8").trim() === "")
    return [{ file: `${id}/${path}`, message: "the report is empty" }];
  return [];
}

/** Is this repository URL remote (needs network) rather than a folder of the incident? */
export function isRemoteUrl(url: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^[^/\s]+@[^:\s]+:/.test(url);
}

/** Where one incident's files are, and how they are named in problems. */
interface IncidentFolder {
  dir: string;
  id: string;
  /** A path of the incident folder as named in problems (`<id>/<path>`). */
  rel: (path: string) => string;
}

/**
 * Checks one incident folder: incident.json, the report and artifacts, the repository
 * (replayed in memory when stored as data), and gold.json against the buggy tree.
 * @param id - the id listed in dataset.json (the folder name).
 */
export async function checkIncident(datasetDir: string, id: string): Promise<IncidentCheck> {
  const folder: IncidentFolder = { dir: join(datasetDir, id), id, rel: (path) => `${id}/${path}` };
  if ((await exists(folder.dir)) !== "dir")
    return {
      goldPresent: false,
      problems: [{ file: id, message: "the incident folder listed in dataset.json is missing" }],
    };
  const problems: DatasetProblem[] = [...(await linkProblems(datasetDir, id))];
  const incident = await parseFile(folder, "incident.json", parseIncident, problems);
  const goldPresent = (await exists(join(folder.dir, "gold.json"))) === "file";
  const gold = goldPresent ? await parseFile(folder, "gold.json", parseGold, problems) : undefined;
  const found = { goldPresent, problems };
  if (!incident) return found;
  problems.push(...(await incidentFileProblems(folder, incident)));
  if (gold) problems.push(...goldIncidentProblems(folder, incident, gold));
  const url = incident.repository.url;
  if (!isRemoteUrl(url)) return checkStoredRepository(folder, incident, gold, found);
  return {
    incident,
    ...(gold ? { gold } : {}),
    repository: { kind: "remote", url, buggyCommit: incident.repository.buggyCommit },
    goldPresent,
    problems,
  };
}

/** Reads and parses a file of the folder by its path there; a problem (and undefined) when it fails. */
async function parseFile<T>(
  { dir, rel }: IncidentFolder,
  path: string,
  parse: (bytes: Buffer, options: { source: string }) => T,
  problems: DatasetProblem[],
): Promise<T | undefined> {
  try {
    return parse(await readFileChecked(join(dir, path)), { source: rel(path) });
  } catch (error) {
    problems.push(...problemsOf(error, rel(path)));
    return undefined;
  }
}

/** incident.json against its folder: the id, the task files, the report, the artifacts. */
async function incidentFileProblems(
  { dir, id, rel }: IncidentFolder,
  incident: Incident,
): Promise<DatasetProblem[]> {
  const problems: DatasetProblem[] = [];
  if (incident.id !== id)
    problems.push({
      file: rel("incident.json"),
      path: "$.id",
      message: `expected ${JSON.stringify(id)} (the folder name listed in dataset.json), found ${JSON.stringify(incident.id)}`,
    });
  problems.push(...(await taskFileProblems(dir, id, incident)));
  problems.push(...(await reportProblems(dir, id, incident.report)));
  for (const [index, artifact] of incident.artifacts.entries()) {
    if (outsideReason(artifact.path)) continue; // named by taskFileProblems
    if ((await exists(join(dir, artifact.path))) !== "file")
      problems.push({
        file: rel(artifact.path),
        message: `the artifact named by incident.json $.artifacts[${index}].path is missing`,
      });
  }
  return problems;
}

/** gold.json against incident.json: the incident id and the languages of the labeled files. */
function goldIncidentProblems(
  { rel }: IncidentFolder,
  incident: Incident,
  gold: Gold,
): DatasetProblem[] {
  const problems: DatasetProblem[] = [];
  if (gold.incidentId !== incident.id)
    problems.push({
      file: rel("gold.json"),
      path: "$.incidentId",
      message: `expected ${JSON.stringify(incident.id)}, found ${JSON.stringify(gold.incidentId)}`,
    });
  gold.blocks.forEach((block, index) => {
    const extension = block.path.split(".").pop() ?? "";
    const language = extensions[extension];
    if (language && !incident.languages.includes(language))
      problems.push({
        file: rel("gold.json"),
        path: `$.blocks[${index}].path`,
        message: `${block.path} is ${language} code, but incident.json $.languages lists ${incident.languages.join(", ")}`,
      });
  });
  return problems;
}

/**
 * A repository stored as data (history.json and the buggy tree): replays it and checks the
 * buggy and fix commits it builds, and the gold blocks against the buggy tree.
 */
async function checkStoredRepository(
  folder: IncidentFolder,
  incident: Incident,
  gold: Gold | undefined,
  { goldPresent, problems }: { goldPresent: boolean; problems: DatasetProblem[] },
): Promise<IncidentCheck> {
  const { dir, rel } = folder;
  const url = incident.repository.url;
  const repoDir = join(dir, url);
  const historyFile = `${url.replace(/\/$/, "")}/history.json`;
  // history.json is read at <url>/history.json, and named by the url as written (less a final /)
  const history = await parseFile(
    { ...folder, rel: () => rel(historyFile) },
    join(url, "history.json"),
    parseRepoHistory,
    problems,
  );
  if ((await exists(join(repoDir, "tree"))) !== "dir") {
    problems.push({ file: rel(`${url}/tree`), message: "the buggy tree folder is missing" });
    return { incident, goldPresent, problems };
  }
  if (!history) return { incident, goldPresent, problems };
  const tree = await readTree(join(repoDir, "tree"));
  const replay = replayHistory(history, tree, rel(historyFile));
  problems.push(...replay.problems);
  problems.push(...replayProblems(folder, historyFile, replay, incident, gold));
  if (gold) problems.push(...goldTreeProblems(folder, gold, tree));
  return {
    incident,
    ...(gold ? { gold } : {}),
    repository: { kind: "history", dir: repoDir, buggyCommit: incident.repository.buggyCommit },
    goldPresent,
    problems,
  };
}

/** The buggy and fix commits the replay built, against incident.json and gold.json. */
function replayProblems(
  { rel }: IncidentFolder,
  historyFile: string,
  replay: ReplayResult,
  incident: Incident,
  gold: Gold | undefined,
): DatasetProblem[] {
  const problems: DatasetProblem[] = [];
  if (replay.buggy && replay.buggy.oid !== incident.repository.buggyCommit)
    problems.push({
      file: rel("incident.json"),
      path: "$.repository.buggyCommit",
      message: `expected ${replay.buggy.oid} (the buggy commit built from ${historyFile}), found ${incident.repository.buggyCommit}`,
    });
  if (!gold) return problems;
  if (!replay.fix)
    problems.push({
      file: rel(historyFile),
      path: "$.commits",
      message: 'expected a commit with "role": "fix" (gold.json names a fix commit)',
    });
  else if (replay.fix.oid !== gold.fix.commit)
    problems.push({
      file: rel("gold.json"),
      path: "$.fix.commit",
      message: `expected ${replay.fix.oid} (the fix commit built from ${historyFile}), found ${gold.fix.commit}`,
    });
  return problems;
}

/** Each gold block names a file of the buggy tree and ends within it. */
function goldTreeProblems(
  { rel }: IncidentFolder,
  gold: Gold,
  tree: ReadonlyMap<string, string>,
): DatasetProblem[] {
  const problems: DatasetProblem[] = [];
  gold.blocks.forEach((block, index) => {
    const content = tree.get(block.path);
    if (content === undefined) {
      problems.push({
        file: rel("gold.json"),
        path: `$.blocks[${index}].path`,
        message: `${block.path} is not a file of the buggy tree`,
      });
      return;
    }
    const lines = content.endsWith("\n")
      ? content.split("\n").length - 1
      : content.split("\n").length;
    if (block.endLine > lines)
      problems.push({
        file: rel("gold.json"),
        path: `$.blocks[${index}].endLine`,
        message: `expected a line <= ${lines} (the length of ${block.path}), found ${block.endLine}`,
      });
  });
  return problems;
}
