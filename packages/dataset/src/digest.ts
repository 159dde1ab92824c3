import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { listFilesBelow } from "@distdebug/schema";

/**
 * The dataset digest: sha256 over what agents see of a dataset folder, that is one line
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
  return digestOfFolder(dir);
}

/**
 * The incident digest: {@link datasetDigest}'s rule over one incident folder, that is what
 * the agent of this incident sees (its report, artifacts, incident.json with the repository
 * revision, repository data) and not gold.json. An attempt's identity holds this digest, not
 * the dataset's, so adding or editing another incident keeps its finished attempts.
 *
 * @example
 * ```ts
 * const digest = await incidentDigest("datasets/catalog/zookeeper-2845"); // "9b2e..."
 * ```
 */
export async function incidentDigest(dir: string): Promise<string> {
  return digestOfFolder(dir);
}

async function digestOfFolder(dir: string): Promise<string> {
  const root = resolve(dir);
  const hash = createHash("sha256");
  for (const path of await listFilesBelow(root)) {
    if (path === "gold.json" || path.endsWith("/gold.json")) continue;
    const fileHash = createHash("sha256")
      .update(await readFile(join(root, path)))
      .digest("hex");
    hash.update(`${path}\0${fileHash}\n`);
  }
  return hash.digest("hex");
}
