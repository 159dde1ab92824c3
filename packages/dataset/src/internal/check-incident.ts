import { stat } from "node:fs/promises";
import { join } from "node:path";
import {
  type Gold,
  type Incident,
  type Language,
  parseGold,
  parseIncident,
  parseRepoHistory,
  type RepoHistory,
  readFileChecked,
} from "@distdebug/schema";
import type { DatasetProblem } from "../problems.js";
import type { IncidentRepositorySource } from "../types.js";
import { problemsOf, readTree } from "./files.js";
import { linkProblems, outsideReason, taskFileProblems } from "./leak-rules.js";
import { replayHistory } from "./replay.js";

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

/**
 * Checks one incident folder: incident.json, the report and artifacts, the repository
 * (replayed in memory when stored as data), and gold.json against the buggy tree.
 * @param id - the id listed in dataset.json (the folder name).
 */
export async function checkIncident(datasetDir: string, id: string): Promise<IncidentCheck> {
  const dir = join(datasetDir, id);
  const problems: DatasetProblem[] = [];
  const rel = (path: string) => `${id}/${path}`;
  if ((await exists(dir)) !== "dir")
    return {
      goldPresent: false,
      problems: [{ file: id, message: "the incident folder listed in dataset.json is missing" }],
    };

  problems.push(...(await linkProblems(datasetDir, id)));
  let incident: Incident | undefined;
  try {
    const bytes = await readFileChecked(join(dir, "incident.json"));
    incident = parseIncident(bytes, { source: rel("incident.json") });
  } catch (error) {
    problems.push(...problemsOf(error, rel("incident.json")));
  }
  let gold: Gold | undefined;
  const goldPresent = (await exists(join(dir, "gold.json"))) === "file";
  if (goldPresent) {
    try {
      gold = parseGold(await readFileChecked(join(dir, "gold.json")), { source: rel("gold.json") });
    } catch (error) {
      problems.push(...problemsOf(error, rel("gold.json")));
    }
  }
  if (!incident) return { goldPresent, problems };

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
  if (gold && gold.incidentId !== incident.id)
    problems.push({
      file: rel("gold.json"),
      path: "$.incidentId",
      message: `expected ${JSON.stringify(incident.id)}, found ${JSON.stringify(gold.incidentId)}`,
    });
  if (gold)
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

  const url = incident.repository.url;
  if (isRemoteUrl(url)) {
    return {
      incident,
      ...(gold ? { gold } : {}),
      repository: { kind: "remote", url, buggyCommit: incident.repository.buggyCommit },
      goldPresent,
      problems,
    };
  }
  const repoDir = join(dir, url);
  const historyFile = `${url.replace(/\/$/, "")}/history.json`;
  let history: RepoHistory | undefined;
  try {
    history = parseRepoHistory(await readFileChecked(join(repoDir, "history.json")), {
      source: rel(historyFile),
    });
  } catch (error) {
    problems.push(...problemsOf(error, rel(historyFile)));
  }
  if ((await exists(join(repoDir, "tree"))) !== "dir") {
    problems.push({ file: rel(`${url}/tree`), message: "the buggy tree folder is missing" });
    return { incident, goldPresent, problems };
  }
  if (!history) return { incident, goldPresent, problems };
  const tree = await readTree(join(repoDir, "tree"));
  const replay = replayHistory(history, tree, rel(historyFile));
  problems.push(...replay.problems);
  if (replay.buggy && replay.buggy.oid !== incident.repository.buggyCommit)
    problems.push({
      file: rel("incident.json"),
      path: "$.repository.buggyCommit",
      message: `expected ${replay.buggy.oid} (the buggy commit built from ${historyFile}), found ${incident.repository.buggyCommit}`,
    });
  if (gold) {
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
  }
  return {
    incident,
    ...(gold ? { gold } : {}),
    repository: { kind: "history", dir: repoDir, buggyCommit: incident.repository.buggyCommit },
    goldPresent,
    problems,
  };
}
