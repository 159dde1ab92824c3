import { createHash } from "node:crypto";
import type { LeakageFinding, LeakageKind } from "../leakage-finding.js";
import { compileNeedles, type NeedleMatch, type NeedleMatcher } from "../needles.js";

/** A line the fix adds, seen in the workspace: a finding once it is absent at the buggy revision. */
export interface FixLineHit {
  finding: LeakageFinding;
  line: string;
}

/** What one content holds: needle matches, and candidate fix lines (trimmed) by 0-based row. */
interface ContentHits {
  matches: NeedleMatch[];
  lines: { line: string; index: number }[];
}

/**
 * Scans contents and names for needles (recorded at once) and for candidate fix lines (kept
 * as hits to confirm against the buggy tree); holds the findings, at most `maxFindings`.
 */
export class LeakScanner {
  readonly findings: LeakageFinding[] = [];
  readonly lineHits: FixLineHit[] = [];
  readonly #matcher: NeedleMatcher;
  /** What each distinct content (by SHA-256) holds. */
  readonly #seen = new Map<string, ContentHits>();

  constructor(
    needles: readonly string[],
    private readonly fixCommit: string | undefined,
    private readonly candidates: ReadonlySet<string>,
    private readonly maxFindings: number,
  ) {
    this.#matcher = compileNeedles([...needles, ...(fixCommit ? [fixCommit] : [])]);
  }

  add(finding: LeakageFinding): void {
    if (this.findings.length < this.maxFindings) this.findings.push(finding);
  }

  /**
   * Needles in `content` (findings) and candidate fix lines (hits); `what` prefixes details.
   * What a content holds is worked out once per content (a work-tree file and its blob in the
   * pack are the same bytes) and attributed to each place it is seen.
   */
  scan(content: Buffer, file: string, what: string): void {
    const { matches, lines } = this.#hitsOf(content);
    for (const match of matches)
      this.add({
        kind: this.#kindOf(match.needle),
        file,
        line: match.line,
        detail: `${what}contains ${JSON.stringify(match.text)} (needle ${JSON.stringify(match.needle)})`,
      });
    for (const { line, index } of lines)
      this.lineHits.push({
        line,
        finding: {
          kind: "fix-line",
          file,
          line: index + 1,
          detail: `${what}contains a line the fix adds: ${JSON.stringify(line.slice(0, 120))}`,
        },
      });
  }

  /** The needle matches and candidate lines of `content`, found once per distinct content. */
  #hitsOf(content: Buffer): ContentHits {
    const key = createHash("sha256").update(content).digest("base64");
    const known = this.#seen.get(key);
    if (known) return known;
    const lines: ContentHits["lines"] = [];
    if (this.candidates.size > 0)
      content
        .toString("utf8")
        .split("\n")
        .forEach((line, index) => {
          const trimmed = line.trim();
          if (trimmed.length >= 20 && this.candidates.has(trimmed))
            lines.push({ line: trimmed, index });
        });
    const hits = { matches: this.#matcher.find(content), lines };
    this.#seen.set(key, hits);
    return hits;
  }

  /** Needles in a path. */
  scanName(path: string, file: string): void {
    for (const match of this.#matcher.find(Buffer.from(path)))
      this.add({
        kind: this.#kindOf(match.needle),
        file,
        detail: `the path contains ${JSON.stringify(match.text)}`,
      });
  }

  #kindOf(needle: string): LeakageKind {
    return needle === this.fixCommit ? "fix-commit" : "needle";
  }
}
