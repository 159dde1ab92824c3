import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "@distdebug/schema";
import type { LeakageFinding } from "../leakage-finding.js";
import type { WorkspaceCopyProof } from "../workspace-copy-proof.js";
import { withLock } from "./temp-files.js";

/**
 * What the leakage check looks for, part of a verdict's key: bump it whenever `checkLeakage`
 * starts finding something it did not (a verdict of an older check is then not reused).
 */
const LEAKAGE_CHECK_VERSION = 1;

const VERDICT_FORMAT = "distdebug.leakage-verdict/1";

/** The result of a check, as a verdict keeps it (the report of `checkLeakage`). */
export interface VerdictReport {
  clean: boolean;
  findings: LeakageFinding[];
  scanned: { files: number; objects: number };
}

/** A verdict file: the report of the check of a tree with `contentDigest`, under `options`. */
interface Verdict {
  format: typeof VERDICT_FORMAT;
  contentDigest: string;
  options: unknown;
  report: VerdictReport;
}

/**
 * The check's options that decide its findings (needles, the fix commit and what is known of
 * its lines, the findings cap), without where the fix's repository happens to be.
 */
export interface VerdictOptions {
  needles: readonly string[];
  fix?: { commit: string; buggyCommit?: string; missingPaths?: readonly string[] } | undefined;
  maxFindings: number;
}

/** The verdict's file beside the base: named by the contents checked and the options. */
function verdictPath(proof: WorkspaceCopyProof, options: VerdictOptions): string {
  const key = createHash("sha256")
    .update(JSON.stringify(verdictKey(proof, options)))
    .digest("hex")
    .slice(0, 40);
  return join(dirname(proof.baseDir), "leakage", `${key}.json`);
}

function verdictKey(proof: WorkspaceCopyProof, options: VerdictOptions): Record<string, unknown> {
  return {
    v: LEAKAGE_CHECK_VERSION,
    contentDigest: proof.contentDigest,
    needles: [...new Set(options.needles)].sort(),
    fix: options.fix
      ? {
          commit: options.fix.commit.toLowerCase(),
          buggyCommit: options.fix.buggyCommit?.toLowerCase() ?? null,
          missingPaths: [...new Set(options.fix.missingPaths ?? [])].sort(),
        }
      : null,
    maxFindings: options.maxFindings,
  };
}

async function readVerdict(
  path: string,
  proof: WorkspaceCopyProof,
  options: VerdictOptions,
): Promise<VerdictReport | undefined> {
  try {
    const verdict = JSON.parse(await readFile(path, "utf8")) as Verdict;
    const sameKey =
      JSON.stringify(verdict.options) === JSON.stringify(verdictKey(proof, options)) &&
      verdict.contentDigest === proof.contentDigest;
    const report = verdict.report;
    if (
      verdict.format !== VERDICT_FORMAT ||
      !sameKey ||
      report?.clean !== true ||
      !Array.isArray(report.findings) ||
      report.findings.length > 0
    )
      return undefined;
    return report;
  } catch {
    return undefined;
  }
}

/**
 * The verdict for a proven copy: the clean one recorded beside its base for the same contents
 * and options, else `check()`'s, recorded there for the next copy when clean. Under a lock per
 * verdict, so attempts that start together check once.
 */
export async function leakageVerdict(
  proof: WorkspaceCopyProof,
  options: VerdictOptions,
  check: () => Promise<VerdictReport>,
): Promise<{ report: VerdictReport; reused: boolean }> {
  const path = verdictPath(proof, options);
  await mkdir(dirname(path), { recursive: true });
  return withLock(`${path}.lock`, async () => {
    const found = await readVerdict(path, proof, options);
    if (found) return { report: found, reused: true };
    const report = await check();
    // Only a clean verdict is kept: a finding may concern this copy alone (a time a reader
    // moved), and a leaking base fails every attempt anyway.
    if (!report.clean) return { report, reused: false };
    const verdict: Verdict = {
      format: VERDICT_FORMAT,
      contentDigest: proof.contentDigest,
      options: verdictKey(proof, options),
      report,
    };
    await writeFileAtomic(path, `${JSON.stringify(verdict, null, 2)}\n`);
    return { report, reused: false };
  });
}
