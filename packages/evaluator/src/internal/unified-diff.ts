import { DistDebugError } from "@distdebug/schema";
import type { LineEdits } from "../line-diff.js";

/** One file of a unified diff, in buggy-revision terms. */
export interface DiffFile extends LineEdits {
  /** Path at the buggy revision (`undefined` for a new file). */
  oldPath: string | undefined;
  /** Path at the fixed revision (`undefined` for a deleted file). */
  newPath: string | undefined;
}

function stripPrefix(raw: string): string | undefined {
  const path = raw.split("\t")[0]?.trim() ?? "";
  if (path === "/dev/null") return undefined;
  return path.replace(/^[ab]\//, "");
}

/**
 * Parses a unified diff (`git diff`, `diff -u`): per file, the buggy lines removed and the
 * buggy lines after which lines are only inserted. Throws `INVALID_ARGUMENT` for text that
 * holds no file header or a malformed hunk header.
 */
export function parseUnifiedDiff(text: string, source = "diff"): DiffFile[] {
  const lines = text.split(/\r?\n/);
  const files: DiffFile[] = [];
  let current: DiffFile | undefined;
  let oldLine = 0;
  let hunkRemoved = false;
  let hunkInserted = false;
  let insertAt = 0;
  const close = () => {
    if (current && hunkInserted && !hunkRemoved) current.insertions.push(insertAt);
    hunkRemoved = false;
    hunkInserted = false;
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.startsWith("--- ") && lines[index + 1]?.startsWith("+++ ")) {
      close();
      current = {
        oldPath: stripPrefix(line.slice(4)),
        newPath: stripPrefix((lines[index + 1] as string).slice(4)),
        removed: [],
        insertions: [],
      };
      files.push(current);
      index++;
      continue;
    }
    if (line.startsWith("@@")) {
      close();
      const match = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (!match || !current)
        throw new DistDebugError({
          code: "INVALID_ARGUMENT",
          message: `${source}: line ${index + 1}: expected a hunk header "@@ -a,b +c,d @@" after a file header, found ${JSON.stringify(line.slice(0, 60))}`,
          data: { source, line: index + 1 },
        });
      const start = Number(match[1]);
      const count = match[2] === undefined ? 1 : Number(match[2]);
      // "-a,0" means the hunk inserts after line a.
      oldLine = count === 0 ? start + 1 : start;
      continue;
    }
    if (!current) continue;
    if (line.startsWith("-")) {
      current.removed.push(oldLine);
      hunkRemoved = true;
      oldLine++;
    } else if (line.startsWith("+")) {
      if (!hunkInserted) insertAt = oldLine - 1;
      hunkInserted = true;
    } else if (line.startsWith(" ")) {
      close();
      oldLine++;
    } else if (line.startsWith("\\")) {
      // "\ No newline at end of file"
    } else {
      close();
    }
  }
  close();
  if (files.length === 0)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `${source}: no file header ("--- a/path" and "+++ b/path") found; expected a unified diff`,
      data: { source },
    });
  return files;
}
