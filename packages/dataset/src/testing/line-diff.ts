/** What a change did to the old file, in old-file line numbers (1-based). */
export interface LineChanges {
  /** Old lines removed or replaced. */
  changed: Set<number>;
  /**
   * Pure insertions: `k` means new lines were inserted after old line `k` (0 = before the
   * first line).
   */
  insertedAfter: Set<number>;
}

/**
 * A plain line diff (longest common subsequence) of two texts. Inputs are small source
 * files, so the quadratic table is fine.
 */
export function lineChanges(before: string, after: string): LineChanges {
  const a = before.split("\n");
  const b = after.split("\n");
  const n = a.length;
  const m = b.length;
  const table: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      table[i]![j] =
        a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  const changed = new Set<number>();
  const insertedAfter = new Set<number>();
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      i++;
      j++;
    } else if (j < m && (i === n || table[i]![j + 1]! >= table[i + 1]![j]!)) {
      insertedAfter.add(i);
      j++;
    } else {
      changed.add(i + 1);
      i++;
    }
  }
  // An insertion next to a removed line is a replacement: keep only the removal.
  for (const k of [...insertedAfter])
    if (changed.has(k) || changed.has(k + 1)) insertedAfter.delete(k);
  return { changed, insertedAfter };
}
