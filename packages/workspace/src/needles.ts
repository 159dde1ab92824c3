/** One occurrence of a needle in a file's bytes. */
export interface NeedleMatch {
  /** The configured needle that matched (for a commit id, the full id). */
  needle: string;
  /** The bytes that matched, as text. */
  text: string;
  /** Byte offset in the content. */
  offset: number;
  /** Length of the match in bytes. */
  length: number;
  /** 1-based line number. */
  line: number;
}

/** A compiled set of needles, see {@link compileNeedles}. */
export interface NeedleMatcher {
  readonly needles: readonly string[];
  /** Every match in `content`, in order. */
  find(content: Buffer): NeedleMatch[];
}

const commitIdPattern = /^[0-9a-f]{40}$/i;
/** Shortest abbreviation of a commit id that counts as the id. */
export const MIN_COMMIT_PREFIX = 7;

function bytePattern(needle: string): string {
  let out = "";
  for (const byte of Buffer.from(needle, "utf8")) {
    const char = String.fromCharCode(byte);
    if (/[a-z]/i.test(char)) out += `[${char.toLowerCase()}${char.toUpperCase()}]`;
    else out += `\\x${byte.toString(16).padStart(2, "0")}`;
  }
  return out;
}

/**
 * Compiles needles into one matcher. Text needles match case-insensitively (ASCII letters),
 * byte for byte otherwise. A needle that is a full 40-hex commit id also matches any
 * abbreviation of it of 7 or more hex digits standing alone (not inside a longer hex run).
 *
 * @example
 * ```ts
 * const matcher = compileNeedles(["ZOOKEEPER-2845", fixCommit]);
 * matcher.find(Buffer.from("see zookeeper-2845\n")); // [{ needle: "ZOOKEEPER-2845", line: 1, ... }]
 * ```
 */
export function compileNeedles(needles: readonly string[]): NeedleMatcher {
  const unique = [...new Set(needles.filter((needle) => needle.length > 0))];
  const commits = unique
    .filter((needle) => commitIdPattern.test(needle))
    .map((n) => n.toLowerCase());
  const texts = unique
    .filter((needle) => !commitIdPattern.test(needle))
    .sort((a, b) => b.length - a.length);
  const alternatives = texts.map(bytePattern);
  if (commits.length > 0)
    alternatives.push(`(?<![0-9a-fA-F])[0-9a-fA-F]{${MIN_COMMIT_PREFIX},40}(?![0-9a-fA-F])`);
  const regex = alternatives.length > 0 ? new RegExp(alternatives.join("|"), "g") : undefined;
  const textByLower = new Map(
    texts.map((text) => [Buffer.from(text, "utf8").toString("latin1").toLowerCase(), text]),
  );
  return {
    needles: unique,
    find(content) {
      if (!regex) return [];
      const text = content.toString("latin1");
      const matches: NeedleMatch[] = [];
      let line = 1;
      let lineFrom = 0;
      regex.lastIndex = 0;
      for (let match = regex.exec(text); match; match = regex.exec(text)) {
        const value = match[0];
        let needle = textByLower.get(value.toLowerCase());
        if (needle === undefined) {
          const lower = value.toLowerCase();
          needle = commits.find((commit) => commit.startsWith(lower));
          if (needle === undefined) continue;
        }
        for (
          let at = text.indexOf("\n", lineFrom);
          at >= 0 && at < match.index;
          at = text.indexOf("\n", at + 1)
        ) {
          line++;
          lineFrom = at + 1;
        }
        matches.push({
          needle,
          text: Buffer.from(value, "latin1").toString("utf8"),
          offset: match.index,
          length: value.length,
          line,
        });
      }
      return matches;
    },
  };
}

/**
 * The text a needle occurrence is replaced with: one plain, common word, the same for every
 * needle and every length, so the replacement marks no place (a run of one character as long
 * as the key, as `// TODO(xxxxxxxxxx)`, pointed at the bug). The match's line breaks are kept
 * after it, so no line count or line number changes (byte offsets within a line do).
 */
export const REDACTION_TEXT = "issue";
/** Used in turn when a needle matches {@link REDACTION_TEXT} itself. */
const FALLBACK_TEXTS = ["ticket", "bug", "item"];
/** Rounds of replacement before the last resort (replacements that form a needle again). */
const MAX_ROUNDS = 4;

/** The first replacement word no needle matches (undefined when all do). */
function replacementFor(matcher: NeedleMatcher): string | undefined {
  return [REDACTION_TEXT, ...FALLBACK_TEXTS].find(
    (word) => matcher.find(Buffer.from(` ${word} `)).length === 0,
  );
}

function replaceMatches(content: Buffer, matches: readonly NeedleMatch[], word: string): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (const match of matches) {
    parts.push(content.subarray(at, match.offset));
    const breaks = content.subarray(match.offset, match.offset + match.length).toString("latin1");
    parts.push(Buffer.from(word + "\n".repeat(breaks.split("\n").length - 1)));
    at = match.offset + match.length;
  }
  parts.push(content.subarray(at));
  return Buffer.concat(parts);
}

/**
 * Replaces every needle occurrence with {@link REDACTION_TEXT} (keeping its line breaks), so
 * no line count or line number changes. Replacing again until no needle is left; a
 * replacement that keeps forming a needle with its neighbours (or needles that match every
 * replacement word) falls back to spaces. Returns the original buffer when nothing matched;
 * `matches` are those of the first round, at offsets of the original content.
 *
 * @example
 * ```ts
 * scrubNeedles(Buffer.from("ZK-1 fixed\n"), compileNeedles(["ZK-1"])).content.toString(); // "issue fixed\n"
 * ```
 */
export function scrubNeedles(
  content: Buffer,
  matcher: NeedleMatcher,
): { content: Buffer; matches: NeedleMatch[] } {
  const matches = matcher.find(content);
  if (matches.length === 0) return { content, matches };
  const word = replacementFor(matcher);
  let out = content;
  let found = matches;
  for (let round = 0; found.length > 0; round++) {
    const last = round >= MAX_ROUNDS || word === undefined;
    out = replaceMatches(out, found, last ? " " : word);
    found = matcher.find(out);
    if (last && found.length > 0)
      // Spaces cannot form a needle only if no needle is made of spaces and the neighbours:
      // blank every byte of what is left but line breaks.
      for (const match of found)
        for (let i = match.offset; i < match.offset + match.length; i++)
          if (out[i] !== 0x0a) out[i] = 0x20;
    if (last) break;
  }
  return { content: out, matches };
}
