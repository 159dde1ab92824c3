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

/** The bytes a needle occurrence is replaced with: one `x` per byte, so offsets and lines stay. */
export const REDACTION_BYTE = 0x78;

/**
 * Replaces every needle occurrence with as many `x` bytes as it has, so no line count, line
 * number or byte offset changes. Returns the original buffer when nothing matched.
 *
 * @example
 * ```ts
 * scrubNeedles(Buffer.from("ZK-1 fixed\n"), compileNeedles(["ZK-1"])).content.toString(); // "xxxx fixed\n"
 * ```
 */
export function scrubNeedles(
  content: Buffer,
  matcher: NeedleMatcher,
): { content: Buffer; matches: NeedleMatch[] } {
  const matches = matcher.find(content);
  if (matches.length === 0) return { content, matches };
  const out = Buffer.from(content);
  for (const match of matches) {
    out.fill(REDACTION_BYTE, match.offset, match.offset + match.length);
  }
  return { content: out, matches };
}
