/** Edit distance with transpositions (optimal string alignment), for "did you mean". */
function distance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = Array.from({ length: rows * cols }, (_, index) =>
    index < cols ? index : index % cols === 0 ? index / cols : 0,
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        d[(i - 1) * cols + j]! + 1,
        d[i * cols + j - 1]! + 1,
        d[(i - 1) * cols + j - 1]! + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[(i - 2) * cols + j - 2]! + 1);
      d[i * cols + j] = best;
    }
  }
  return d[rows * cols - 1]!;
}

/** A word without case and separators: `start_line`, `start-line` and `startLine` read alike. */
function spelling(word: string): string {
  return word.toLowerCase().replace(/[-_\s]/g, "");
}

/**
 * The candidate closest to `word` when it is a plausible typo: the same word in another case
 * or with other separators (`start_line` for `startLine`), or at most 2 edits and at most a
 * third of the word away; else undefined.
 *
 * @example
 * ```ts
 * closest("scroe", ["score", "run"]); // "score"
 * closest("start_line", ["path", "startLine"]); // "startLine"
 * ```
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  const sameWord = list.find((candidate) => spelling(candidate) === spelling(word));
  if (sameWord !== undefined) return sameWord;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of list) {
    const current = distance(word, candidate);
    if (current < bestDistance) {
      best = candidate;
      bestDistance = current;
    }
  }
  const limit = Math.min(2, Math.max(1, Math.floor(word.length / 3)));
  return bestDistance <= limit ? best : undefined;
}

/**
 * `" (did you mean X?)"` or an empty string.
 *
 * @example
 * ```ts
 * didYouMean("enviroment", ["agent", "environment"]); // " (did you mean environment?)"
 * ```
 */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const match = closest(word, candidates);
  return match === undefined ? "" : ` (did you mean ${match}?)`;
}
