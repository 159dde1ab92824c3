/** The edits of a line diff, in buggy-revision terms. */
export interface LineEdits {
  /** Buggy lines (1-based) removed or replaced by the fix. */
  removed: number[];
  /** Buggy lines after which the fix inserts lines without removing any (0: at the top). */
  insertions: number[];
}

/** Above this many cells the middle of the diff is taken as one replaced region. */
const MAX_CELLS = 4_000_000;

/**
 * A line diff of two texts (longest common subsequence on the part between the common prefix
 * and suffix). Deterministic: ties keep buggy lines first.
 */
export function diffLines(buggy: string[], fixed: string[]): LineEdits {
  let prefix = 0;
  while (prefix < buggy.length && prefix < fixed.length && buggy[prefix] === fixed[prefix])
    prefix++;
  let suffix = 0;
  while (
    suffix < buggy.length - prefix &&
    suffix < fixed.length - prefix &&
    buggy[buggy.length - 1 - suffix] === fixed[fixed.length - 1 - suffix]
  )
    suffix++;
  const a = buggy.slice(prefix, buggy.length - suffix);
  const b = fixed.slice(prefix, fixed.length - suffix);
  const removed: number[] = [];
  const insertions: number[] = [];
  if (a.length === 0 && b.length === 0) return { removed, insertions };
  if (a.length === 0) return { removed, insertions: [prefix] };
  if (b.length === 0 || a.length * b.length > MAX_CELLS) {
    for (let i = 0; i < a.length; i++) removed.push(prefix + i + 1);
    return { removed, insertions };
  }
  // lcs[i][j] = LCS length of a[i..] and b[j..].
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i * width + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * width + j + 1] as number) + 1
          : Math.max(lcs[(i + 1) * width + j] as number, lcs[i * width + j + 1] as number);
  let i = 0;
  let j = 0;
  let hunkRemoved = false;
  let hunkInserted = false;
  const closeHunk = () => {
    if (hunkInserted && !hunkRemoved) insertions.push(prefix + i);
    hunkRemoved = false;
    hunkInserted = false;
  };
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      closeHunk();
      i++;
      j++;
    } else if (
      j >= b.length ||
      (i < a.length && (lcs[(i + 1) * width + j] as number) >= (lcs[i * width + j + 1] as number))
    ) {
      removed.push(prefix + i + 1);
      hunkRemoved = true;
      i++;
    } else {
      hunkInserted = true;
      j++;
    }
  }
  closeHunk();
  return { removed, insertions };
}
