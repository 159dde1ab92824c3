/** The edits of a line diff, in buggy-revision terms. */
export interface LineEdits {
  /** Buggy lines (1-based) removed or replaced by the fix. */
  removed: number[];
  /** Buggy lines after which the fix inserts lines without removing any (0: at the top). */
  insertions: number[];
}

/**
 * Above this many edits in one file everything after the common prefix is taken as one
 * replaced region: the search keeps one row per edit, so memory grows
 * with the square of the edit count (5,000 edits: about 100 MB).
 */
const MAX_EDITS = 5_000;

/** One edit of the script, at buggy index `i` and fixed index `j` (0-based, before it). */
interface Edit {
  kind: "remove" | "insert";
  i: number;
  j: number;
}

/** Unreachable diagonal: the path would leave the edit graph. */
const NONE = -1;

/**
 * A minimal line diff of two texts (Myers' O(ND) algorithm after the common prefix), so a
 * large file with few edits costs time linear in its size. Deterministic: matching lines are
 * taken as soon as they appear (so an insertion that could sit at several places sits at the
 * last, e.g. after a closing `}` rather than before it), and where two minimal scripts tie a
 * removal comes before an insertion: `x y x -> y x y` removes buggy line 1 and inserts after
 * line 3.
 *
 * @example
 * ```ts
 * diffLines(["a", "b", "c"], ["a", "B", "c", "d"]); // { removed: [2], insertions: [3] }
 * ```
 */
export function diffLines(buggy: string[], fixed: string[]): LineEdits {
  let prefix = 0;
  while (prefix < buggy.length && prefix < fixed.length && buggy[prefix] === fixed[prefix])
    prefix++;
  const a = buggy.slice(prefix);
  const b = fixed.slice(prefix);
  if (a.length === 0 && b.length === 0) return { removed: [], insertions: [] };
  if (a.length === 0) return { removed: [], insertions: [prefix] };
  const edits = b.length === 0 ? undefined : myersEdits(a, b);
  if (edits === undefined)
    return { removed: a.map((_, index) => prefix + index + 1), insertions: [] };
  return editsToLines(edits, prefix);
}

/** The furthest x reached on diagonal `k` after one more edit, from the previous row. */
function step(previous: Int32Array, d: number, k: number): { x: number; down: boolean } {
  const at = (diagonal: number) => previous[diagonal + d - 1] as number;
  const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
  const from = at(down ? k + 1 : k - 1);
  if (from === NONE) return { x: NONE, down };
  return { x: down ? from : from + 1, down };
}

/**
 * The shortest edit script from `a` to `b`, or undefined above {@link MAX_EDITS}. Row `d` of
 * the trace holds the furthest x on each diagonal `k` in `[-d, d]` (index `k + d`).
 */
function myersEdits(a: string[], b: string[]): Edit[] | undefined {
  const n = a.length;
  const m = b.length;
  const trace: Int32Array[] = [];
  let previous = new Int32Array(0);
  for (let d = 0; d <= Math.min(n + m, MAX_EDITS); d++) {
    const row = new Int32Array(2 * d + 1).fill(NONE);
    for (let k = -d; k <= d; k += 2) {
      let { x } = d === 0 ? { x: 0 } : step(previous, d, k);
      if (x === NONE || x > n || x - k > m) {
        row[k + d] = NONE;
        continue;
      }
      while (x < n && x - k < m && a[x] === b[x - k]) x++;
      row[k + d] = x;
      if (x === n && x - k === m) {
        trace.push(row);
        return backtrack(trace, n, m);
      }
    }
    trace.push(row);
    previous = row;
  }
  return undefined;
}

/** Walks the trace back from (n, m) to (0, 0), collecting one edit per row. */
function backtrack(trace: Int32Array[], n: number, m: number): Edit[] {
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    const previous = trace[d - 1] as Int32Array;
    const k = x - y;
    const { down } = step(previous, d, k);
    const fromK = down ? k + 1 : k - 1;
    const fromX = previous[fromK + d - 1] as number;
    const fromY = fromX - fromK;
    edits.push(
      down ? { kind: "insert", i: fromX, j: fromY } : { kind: "remove", i: fromX, j: fromY },
    );
    x = fromX;
    y = fromY;
  }
  return edits.reverse();
}

/**
 * Buggy-line numbers of an edit script: every removal, and for a run of edits without a
 * removal (a pure insertion) the buggy line it follows.
 */
function editsToLines(edits: Edit[], prefix: number): LineEdits {
  const removed: number[] = [];
  const insertions: number[] = [];
  let hunkStart = 0;
  for (let index = 0; index <= edits.length; index++) {
    const edit = edits[index];
    const previous = edits[index - 1];
    const continues =
      edit !== undefined &&
      previous !== undefined &&
      edit.i === previous.i + (previous.kind === "remove" ? 1 : 0) &&
      edit.j === previous.j + (previous.kind === "insert" ? 1 : 0);
    if (index > 0 && !continues) {
      const hunk = edits.slice(hunkStart, index);
      if (hunk.every((item) => item.kind === "insert"))
        insertions.push(prefix + (hunk[0] as Edit).i);
      hunkStart = index;
    }
    if (edit?.kind === "remove") removed.push(prefix + edit.i + 1);
  }
  return { removed, insertions };
}
