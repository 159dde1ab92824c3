import type { LeakageFinding, LeakageKind } from "../leakage-finding.js";
import { compileNeedles, type NeedleMatcher } from "../needles.js";

/** A line the fix adds, seen in the workspace: a finding once it is absent at the buggy revision. */
export interface FixLineHit {
  finding: LeakageFinding;
  line: string;
}

/**
 * Scans contents and names for needles (recorded at once) and for candidate fix lines (kept
 * as hits to confirm against the buggy tree); holds the findings, at most `maxFindings`.
 */
export class LeakScanner {
  readonly findings: LeakageFinding[] = [];
  readonly lineHits: FixLineHit[] = [];
  readonly #matcher: NeedleMatcher;

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

  /** Needles in `content` (findings) and candidate fix lines (hits); `what` prefixes details. */
  scan(content: Buffer, file: string, what: string): void {
    for (const match of this.#matcher.find(content))
      this.add({
        kind: this.#kindOf(match.needle),
        file,
        line: match.line,
        detail: `${what}contains ${JSON.stringify(match.text)} (needle ${JSON.stringify(match.needle)})`,
      });
    if (this.candidates.size === 0) return;
    content
      .toString("utf8")
      .split("\n")
      .forEach((line, index) => {
        const trimmed = line.trim();
        if (trimmed.length >= 20 && this.candidates.has(trimmed))
          this.lineHits.push({
            line: trimmed,
            finding: {
              kind: "fix-line",
              file,
              line: index + 1,
              detail: `${what}contains a line the fix adds: ${JSON.stringify(trimmed.slice(0, 120))}`,
            },
          });
      });
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
