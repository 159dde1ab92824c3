import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { bundledDatasets, type Dataset, loadDataset } from "@distdebug/dataset";
import type { MirrorOptions } from "@distdebug/runner";
import type { CommandArgs, CommandOption } from "./command.js";
import { stringList } from "./command.js";

/**
 * The folder a dataset argument names: a folder (relative to `cwd`) when one exists there,
 * else a bundled dataset by name (`example`, `catalog`), which works outside the repository
 * too; else the path as given (loading it then names what is missing).
 */
export function datasetDirOf(text: string, cwd: string): string {
  const path = resolve(cwd, text);
  if (existsSync(path)) return path;
  return bundledDatasets().find((entry) => entry.name === text)?.dir ?? path;
}

/** Loads the dataset a folder or a bundled dataset's name names (see {@link datasetDirOf}). */
export function loadDatasetArg(text: string, cwd: string): Promise<Dataset> {
  return loadDataset(datasetDirOf(text, cwd));
}

/** The `--mirror` option of the commands that read remote repositories. */
export const MIRROR_OPTION: Record<string, CommandOption> = {
  mirror: {
    type: "string",
    multiple: true,
    description:
      "a folder of local mirrors of the remote repositories, or owner/name=<gitdir> (repeatable); no clone then",
  },
};

/** The mirrors `--mirror` names: `owner/name=<gitdir>` mappings and folders of mirrors. */
export function mirrorsFromArgs(args: CommandArgs, cwd: string): MirrorOptions {
  const dirs: string[] = [];
  const map: Record<string, string> = {};
  for (const value of stringList(args, "mirror")) {
    const mapping = /^([^=/]+\/[^=/]+)=(.+)$/.exec(value);
    if (mapping) map[mapping[1]!] = resolve(cwd, mapping[2]!);
    else dirs.push(resolve(cwd, value));
  }
  return { dirs, map };
}
