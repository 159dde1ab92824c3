import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { canonicalJson, listFilesBelow, sha256Hex } from "@distdebug/schema";

/**
 * The dataset digest: sha256 over a dataset folder, that is one line
 * `<path>\0<sha256 of the bytes>\n` per regular file but the incidents' `gold.json`, sorted
 * by POSIX path. Two copies of a dataset with the same files have the same digest wherever
 * they live; any change to a report, an artifact, an incident or repository data changes it.
 * Gold labels are not an input of an attempt: relabeling leaves the digest (and so every
 * finished attempt) as it is, and `score` rescores with the current gold.
 *
 * @example
 * ```ts
 * const digest = await datasetDigest("examples/dataset"); // "3f1c..."
 * ```
 */
export async function datasetDigest(dir: string): Promise<string> {
  const [digest] = await digestsOfFolder(dir, [asBytes]);
  return digest as string;
}

/**
 * The fields of incident.json the agent never sees: what the labeler recorded about the
 * real report (`clues`), where the incident comes from (`provenance`) and its `category`.
 * Correcting them changes no attempt's input, so they are left out of {@link incidentDigest}.
 */
const UNSEEN_INCIDENT_FIELDS: readonly string[] = ["category", "clues", "provenance"];

/**
 * The incident digest: what the agent of this incident sees, and so part of every attempt's
 * identity. {@link datasetDigest}'s rule over one incident folder (its report, artifacts,
 * repository data; never gold.json), with incident.json hashed as canonical JSON without
 * the fields no agent sees (`category`, `clues`, `provenance`). Adding or editing another
 * incident, relabeling this one or correcting its clue flags keeps its finished attempts;
 * a change to its title, report, artifacts, languages or repository revision redoes them.
 *
 * @example
 * ```ts
 * const digest = await incidentDigest("datasets/catalog/zookeeper-2845"); // "9b2e..."
 * ```
 */
export async function incidentDigest(dir: string): Promise<string> {
  return (await incidentDigests(dir)).digest;
}

/**
 * {@link incidentDigest} and, read in the same pass, the digests of the folder by earlier
 * rules, which attempts recorded before still carry and match while the folder is unchanged:
 * until catalog 0.3.0 (harness 0.1.0) the whole incident.json was hashed as bytes.
 */
export async function incidentDigests(dir: string): Promise<{ digest: string; earlier: string[] }> {
  const [digest, wholeFile] = await digestsOfFolder(dir, [agentVisible, asBytes]);
  return { digest: digest as string, earlier: [wholeFile as string] };
}

type FileContent = (path: string, bytes: Buffer) => Buffer | string;

const asBytes: FileContent = (_path, bytes) => bytes;

const agentVisible: FileContent = (path, bytes) =>
  path === "incident.json" ? agentVisibleIncident(bytes) : bytes;

/** incident.json as canonical JSON without the unseen fields; bytes that are no JSON object stay as they are. */
function agentVisibleIncident(bytes: Buffer): Buffer | string {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return bytes;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return bytes;
  const seen = Object.fromEntries(
    Object.entries(value).filter(([key]) => !UNSEEN_INCIDENT_FIELDS.includes(key)),
  );
  return canonicalJson(seen);
}

/** One digest per rule, each over every file but gold.json, reading each file once. */
async function digestsOfFolder(dir: string, rules: readonly FileContent[]): Promise<string[]> {
  const root = resolve(dir);
  const hashes = rules.map(() => createHash("sha256"));
  for (const path of await listFilesBelow(root)) {
    if (path === "gold.json" || path.endsWith("/gold.json")) continue;
    const bytes = await readFile(join(root, path));
    rules.forEach((rule, index) => {
      hashes[index]?.update(`${path}\0${sha256Hex(rule(path, bytes))}\n`);
    });
  }
  return hashes.map((hash) => hash.digest("hex"));
}
