import { stat } from "node:fs/promises";
import { join } from "node:path";

/** Local mirrors of remote repositories: folders of mirrors and explicit `owner/name` mappings. */
export interface MirrorOptions {
  /** Folders holding mirrors named `owner+name`, `owner/name`, `name` (with or without `.git`). */
  dirs?: readonly string[];
  /** `owner/name` to a git folder, checked first. */
  map?: Readonly<Record<string, string>>;
}

/**
 * Finds the local mirror of a repository URL: an explicit `owner/name=<dir>` mapping first,
 * then, in each folder of `dirs`, `owner+name/repo`, `owner+name.git`, `owner+name`,
 * `owner/name.git`, `owner/name`, `name.git` or `name` that is a git folder (bare or not).
 * Undefined when none matches.
 */
export async function findMirror(url: string, mirrors: MirrorOptions): Promise<string | undefined> {
  const match = /([^/:]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url);
  if (!match) return undefined;
  const [, owner, name] = match as unknown as [string, string, string];
  const mapped = mirrors.map?.[`${owner}/${name}`];
  if (mapped) return mapped;
  const names = [
    `${owner}+${name}/repo`,
    `${owner}+${name}.git`,
    `${owner}+${name}`,
    `${owner}/${name}.git`,
    `${owner}/${name}`,
    `${name}.git`,
    name,
  ];
  for (const dir of mirrors.dirs ?? []) {
    for (const candidate of names) {
      const path = join(dir, candidate);
      if (
        (await stat(join(path, "HEAD")).catch(() => undefined)) ||
        (await stat(join(path, ".git")).catch(() => undefined))
      )
        return path;
    }
  }
  return undefined;
}
