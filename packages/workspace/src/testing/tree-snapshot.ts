import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";

/** One entry of a folder snapshot: kind, permission bits and bytes (or link target). */
export interface SnapshotEntry {
  kind: "dir" | "file" | "symlink";
  mode: string;
  data: string;
}

/** Reads a whole folder into a sorted record, for byte-for-byte comparisons in tests. */
export function snapshotTree(
  root: string,
  options: { skip?: (rel: string) => boolean } = {},
): Record<string, SnapshotEntry> {
  const out: Record<string, SnapshotEntry> = {};
  const visit = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const path = rel === "" ? name : `${rel}/${name}`;
      if (options.skip?.(path)) continue;
      const full = join(root, path);
      const stats = lstatSync(full);
      const mode = (stats.mode & 0o777).toString(8);
      if (stats.isSymbolicLink())
        out[path] = { kind: "symlink", mode: "", data: readlinkSync(full) };
      else if (stats.isDirectory()) {
        out[path] = { kind: "dir", mode, data: "" };
        visit(path);
      } else out[path] = { kind: "file", mode, data: readFileSync(full).toString("base64") };
    }
  };
  visit("");
  return out;
}
