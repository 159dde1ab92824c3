import { readFile } from "node:fs/promises";
import { parseDiagnosisScores, serialize } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { attemptFilesIn, scoreAttempt, scoreLine } from "./score-attempt.js";

const LEASE_GO = `package lease

import "time"

type Lease struct {
\tTTL     time.Duration
\tExpires time.Time
}

// Renew extends the lease from now.
func (l *Lease) Renew(now time.Time) {
\tif l.TTL <= 0 {
\t\treturn
\t}
\tl.Expires = l.Expires.Add(l.TTL)
}

func (l *Lease) Expired(now time.Time) bool {
\treturn now.After(l.Expires)
}
`;

const gold = {
  format: "distdebug.gold/1",
  incidentId: "leasekv-1",
  blocks: [
    {
      path: "lease/lease.go",
      startLine: 15,
      endLine: 15,
      note: "renews from the old expiry, not from now",
    },
  ],
  fix: { commit: "0123456789abcdef0123456789abcdef01234567" },
};

async function attempt(diagnosis: unknown) {
  const dir = await testdir({
    "repo/lease/lease.go": LEASE_GO,
    "repo/README.md": "# leasekv\n",
    "gold.json": serialize(gold),
    "out/diagnosis.json": typeof diagnosis === "string" ? diagnosis : serialize(diagnosis),
  });
  return { dir, files: attemptFilesIn(dir) };
}

describe("scoring inside your own harness", () => {
  it("scores a diagnosis that names the causal line and writes diagnosis_scores.json", async () => {
    const { files } = await attempt({
      format: "distdebug.diagnosis/1",
      incidentId: "leasekv-1",
      blocks: [
        {
          path: "lease/lease.go",
          startLine: 11,
          endLine: 16,
          reason: "Renew adds the TTL to the old expiry",
        },
      ],
    });
    const scores = await scoreAttempt(files);
    expect(scores.valid).toBe(true);
    expect(scores.metrics.blockCoverage).toBe(1);
    expect(scores.metrics.blockPrecision).toBeGreaterThan(0);
    expect(scores.metrics.blockPrecision).toBeLessThan(1);
    expect(scoreLine(scores)).toMatch(/^coverage 100\.0, precision \d+\.\d, file coverage 100\.0$/);
    const written = parseDiagnosisScores(await readFile(files.scoresFile!, "utf8"));
    expect(written).toEqual(scores);
  });

  it("resolves a symbol to its definition", async () => {
    const { files } = await attempt({
      format: "distdebug.diagnosis/1",
      incidentId: "leasekv-1",
      blocks: [{ path: "lease/lease.go", symbol: "Lease.Renew" }],
    });
    const scores = await scoreAttempt(files);
    expect(scores.spans[0]?.kind).toBe("symbol");
    expect(scores.metrics.blockCoverage).toBe(1);
  });

  it("gives 0 to a wrong file, and to a diagnosis that is not JSON, without throwing", async () => {
    const wrong = await attempt({
      format: "distdebug.diagnosis/1",
      incidentId: "leasekv-1",
      blocks: [{ path: "README.md", startLine: 1, endLine: 1 }],
    });
    const wrongScores = await scoreAttempt(wrong.files);
    expect(wrongScores.metrics.blockCoverage).toBe(0);
    expect(wrongScores.metrics.fileCoverage).toBe(0);

    const garbled = await attempt("the bug is in Renew, I think");
    const garbledScores = await scoreAttempt(garbled.files);
    expect(garbledScores.valid).toBe(false);
    expect(garbledScores.metrics.blockCoverage).toBe(0);
  });
});
