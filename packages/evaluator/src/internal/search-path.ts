import type { SearchOutcome, SearchPath, TrajectoryTurn } from "@distdebug/schema";

/** A gold block's text as the search path compares it. */
export interface GoldText {
  /** The block's repository path (null: its file is not in the revision). */
  path: string | null;
  /** The block's significant rows, normalized (see {@link normalizeRow}). */
  rows: string[];
  /** Every significant row of its file, normalized (to tell a command printed the file). */
  fileRows: ReadonlySet<string>;
}

/**
 * Line-number prefixes that viewers add, stripped before comparing: `cat -n` and `nl` (number,
 * tab), `grep -n` and editors' views (`12:`, `12|`, `12 `), `grep -rn` (`path:12:`, `path-12-`).
 */
const PREFIXES = [/^\s*\d+\t/, /^\s*\d+\s*[:|]\s?/, /^[^\s:]+[:-]\d+[:-]/, /^\s*\d+\s+/];

/** Blank space collapsed to one space and trimmed: how rows and output lines are compared. */
export function normalizeRow(line: string): string {
  return line.replace(/\s+/g, " ").trim();
}

const SPACE = /\s/;

/**
 * The last blank-separated word of a line (blank as in {@link normalizeRow}): a line can only
 * match a row that ends with the same word. Reads the line from its end, never all of it.
 */
function lastWord(text: string): string {
  let end = text.length;
  while (end > 0 && SPACE.test(text.charAt(end - 1))) end--;
  let start = end;
  while (start > 0 && !SPACE.test(text.charAt(start - 1))) start--;
  return text.slice(start, end);
}

/** An output line as written and without each viewer prefix it may carry. */
function variantsOf(line: string): string[] {
  const variants = [normalizeRow(line)];
  for (const prefix of PREFIXES) {
    const match = prefix.exec(line);
    if (match) variants.push(normalizeRow(line.slice(match[0].length)));
  }
  return variants;
}

/** Fewest distinct rows of a file an output must hold for a command naming it to have printed it. */
const FILE_ROWS_PRINTED = 3;

/** True when the action names the file: its base name as a path component or a word. */
function names(action: string, path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[\\s/'"=<>(])${escaped}($|[\\s'";|&)<>:,])`).test(action);
}

/** The rows of each gold block, keyed by their normalized text (a linear scan of outputs). */
function rowIndex(golds: readonly GoldText[]): Map<string, { block: number; row: number }[]> {
  const index = new Map<string, { block: number; row: number }[]>();
  golds.forEach((gold, block) => {
    gold.rows.forEach((text, row) => {
      const list = index.get(text) ?? [];
      list.push({ block, row });
      index.set(text, list);
    });
  });
  return index;
}

/** What one output showed: the gold blocks it holds enough rows of, the gold files it printed. */
function scanOutput(
  text: string,
  golds: readonly GoldText[],
  index: ReadonlyMap<string, { block: number; row: number }[]>,
  namedFiles: readonly string[],
  endings: (path: string | undefined) => ReadonlySet<string>,
): { blocks: number[]; files: string[] } {
  const goldEndings = endings(undefined);
  const fileEndings = namedFiles.map((path) => endings(path));
  const blockRows = new Map<number, Set<number>>();
  const fileRows = new Map<string, Set<string>>(namedFiles.map((path) => [path, new Set()]));
  const fileSets = new Map(namedFiles.map((path) => [path, golds.find((g) => g.path === path)]));
  let start = 0;
  while (start <= text.length) {
    const end = text.indexOf("\n", start);
    const line = text.slice(start, end === -1 ? text.length : end);
    start = end === -1 ? text.length + 1 : end + 1;
    // Most lines end in a word no row ends in: skipped before any normalization.
    const ending = lastWord(line);
    if (!goldEndings.has(ending) && !fileEndings.some((set) => set.has(ending))) continue;
    for (const variant of variantsOf(line)) {
      if (variant === "") continue;
      for (const hit of index.get(variant) ?? []) {
        const rows = blockRows.get(hit.block) ?? new Set<number>();
        rows.add(hit.row);
        blockRows.set(hit.block, rows);
      }
      for (const [path, seen] of fileRows)
        if (fileSets.get(path)?.fileRows.has(variant)) seen.add(variant);
    }
  }
  const blocks = [...blockRows]
    .filter(
      ([block, rows]) => rows.size >= Math.max(1, Math.ceil((golds[block]?.rows.length ?? 0) / 2)),
    )
    .map(([block]) => block);
  const files = [...fileRows]
    .filter(([path, seen]) => {
      const total = fileSets.get(path)?.fileRows.size ?? 0;
      return total > 0 && seen.size >= Math.min(FILE_ROWS_PRINTED, total);
    })
    .map(([path]) => path);
  return { blocks, files };
}

interface FirstSeen {
  turn: number;
  tokens: number | null;
  seconds: number | null;
}

/**
 * The search path of one attempt (docs/guide/metrics.md, "Search path"): a gold block is shown
 * when at least half of its significant rows (at least one) appear in one output, compared after
 * blank-space normalization and with viewers' line-number prefixes stripped; its file is shown
 * with it, or when the turn's action names the file and the output holds rows of it. `reached`
 * tells which blocks the diagnosis named. Linear in the outputs' size.
 */
export function searchPath(
  turns: readonly TrajectoryTurn[],
  golds: readonly GoldText[],
  reached: readonly boolean[],
): SearchPath {
  const index = rowIndex(golds);
  const paths = [...new Set(golds.flatMap((gold) => (gold.path === null ? [] : [gold.path])))];
  const blockSeen = new Map<number, FirstSeen>();
  const fileSeen = new Map<string, FirstSeen>();
  const endingsByFile = new Map<string | undefined, Set<string>>();
  const endings = (path: string | undefined): ReadonlySet<string> => {
    let set = endingsByFile.get(path);
    if (!set) {
      const rows =
        path === undefined
          ? golds.flatMap((gold) => gold.rows)
          : [...(golds.find((g) => g.path === path)?.fileRows ?? [])];
      set = new Set(rows.map(lastWord));
      endingsByFile.set(path, set);
    }
    return set;
  };
  const see = <K>(map: Map<K, FirstSeen>, key: K, seen: FirstSeen) => {
    if (!map.has(key)) map.set(key, seen);
  };
  for (const turn of turns) {
    const namedFiles = paths.filter((path) => names(turn.action, path));
    for (const observation of turn.observations) {
      const seen = { turn: turn.number, tokens: turn.tokens, seconds: observation.seconds };
      const shown = scanOutput(observation.text, golds, index, namedFiles, endings);
      for (const block of shown.blocks) {
        see(blockSeen, block, seen);
        const path = golds[block]?.path;
        if (path) see(fileSeen, path, seen);
      }
      for (const path of shown.files) see(fileSeen, path, seen);
    }
  }
  const observed = turns.some((turn) => turn.observations.length > 0);
  const firstOf = (seen: Iterable<FirstSeen>) =>
    [...seen].reduce<FirstSeen | undefined>(
      (best, s) => (!best || s.turn < best.turn ? s : best),
      undefined,
    );
  const firstFile = firstOf(fileSeen.values());
  const firstBlock = firstOf(blockSeen.values());
  return {
    observed,
    turns: turns.length,
    causalFilesShown: [...fileSeen.keys()].sort(),
    causalBlocksShown: [...blockSeen.keys()].sort((a, b) => a - b),
    firstCausalFileStep: firstFile?.turn ?? null,
    firstCausalBlockStep: firstBlock?.turn ?? null,
    tokensToFirstCausalFile: firstFile?.tokens ?? null,
    tokensToFirstCausalBlock: firstBlock?.tokens ?? null,
    secondsToFirstCausalFile: firstFile?.seconds ?? null,
    secondsToFirstCausalBlock: firstBlock?.seconds ?? null,
    blocks: golds.map((gold, block) => {
      const fileStep = gold.path === null ? null : (fileSeen.get(gold.path)?.turn ?? null);
      const blockStep = blockSeen.get(block)?.turn ?? null;
      return {
        outcome: outcomeOf(reached[block] ?? false, observed, blockStep, fileStep),
        fileStep,
        blockStep,
      };
    }),
  };
}

function outcomeOf(
  named: boolean,
  observed: boolean,
  blockStep: number | null,
  fileStep: number | null,
): SearchOutcome {
  if (named) return "named";
  if (!observed) return "unknown";
  if (blockStep !== null) return "shown-not-named";
  if (fileStep !== null) return "file-only";
  return "never-shown";
}
