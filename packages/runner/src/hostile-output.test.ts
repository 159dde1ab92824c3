import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Dataset, loadDataset } from "@distdebug/dataset";
import { parseRunConfig } from "@distdebug/schema";
import { exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { runBenchmark } from "./run-benchmark.js";

const agentsDir = new URL("../fixtures/command-agents", import.meta.url).pathname;
const MiB = 1024 * 1024;
const SECRET = "host-secret-value-7f3a9c";
let dataset: Dataset;
let cacheDir: string;

beforeAll(async () => {
  dataset = await loadDataset(exampleDatasetDir());
  cacheDir = await testdir();
});

interface HostileCase {
  file: "diagnosis.json" | "trajectory.json";
  kind: "symlink" | "fifo" | "directory" | "oversized";
  to?: string;
  bytes?: number;
  reason: RegExp;
}

/** Runs one attempt per case through runBenchmark with a command agent that leaves /output hostile. */
async function runHostile(cases: HostileCase[]) {
  const config = parseRunConfig({
    name: "hostile-output",
    agent: {
      type: "command",
      command: [
        "python3",
        "/opt/agent/hostile-output.py",
        JSON.stringify(cases.map(({ reason: _, ...rest }) => rest)),
      ],
      wallTimeLimitSec: 60,
    },
    environment: {
      sandbox: {
        readOnlyBinds: [{ source: agentsDir, target: "/opt/agent" }],
      },
    },
    run: { attempts: cases.length, concurrency: 2 },
  });
  const outDir = join(await testdir(), "results");
  const result = await runBenchmark({
    config,
    dataset,
    incidents: dataset.incidents.filter((incident) => incident.id === "leasekv-77"),
    outDir,
    cacheDir,
    env: {},
  });
  return { result, outDir };
}

async function filesOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await readdir(dir)) out[name] = await readFile(join(dir, name), "utf8");
  return out;
}

describe("a command agent that leaves /output hostile", () => {
  it("ends agent-error with a one-line reason and copies nothing of the target", async () => {
    const host = await testdir({ "secret.env": `OPENAI_API_KEY=${SECRET}\n` });
    const other = await testdir();
    const otherDiagnosis = join(other, "leasekv-77", "attempt-1", "diagnosis.json");
    await mkdir(join(other, "leasekv-77", "attempt-1"), { recursive: true });
    await writeFile(
      otherDiagnosis,
      JSON.stringify({
        format: "distdebug.diagnosis/1",
        incidentId: "leasekv-77",
        blocks: [{ path: "lease/lessor.go", startLine: 147, endLine: 148 }],
        summary: SECRET,
      }),
    );
    const link = /: is a symbolic link, not a file$/;
    const cases: HostileCase[] = [];
    for (const file of ["diagnosis.json", "trajectory.json"] as const) {
      cases.push(
        { file, kind: "symlink", to: join(host, "secret.env"), reason: link },
        { file, kind: "symlink", to: otherDiagnosis, reason: link },
        { file, kind: "symlink", to: "/dev/zero", reason: link },
        { file, kind: "fifo", reason: /: is a FIFO, not a file$/ },
        { file, kind: "directory", reason: /: is a directory, not a file$/ },
        {
          file,
          kind: "oversized",
          bytes: (file === "diagnosis.json" ? 1 : 32) * MiB + 1,
          reason: /: the file is \d+\.\d MiB, over the \d+\.\d MiB limit/,
        },
      );
    }
    const { result, outDir } = await runHostile(cases);
    expect(result.attempts).toHaveLength(cases.length);
    for (const [index, hostile] of cases.entries()) {
      const record = result.attempts[index];
      const what = `${hostile.file} as ${hostile.kind} ${hostile.to ?? ""}`;
      expect(record?.status, what).toBe("agent-error");
      expect(record?.error?.message, what).toMatch(new RegExp(`^/output/${hostile.file}`));
      expect(record?.error?.message, what).toMatch(hostile.reason);
      expect(record?.error?.message, what).not.toContain("\n");
      const files = await filesOf(join(outDir, "leasekv-77", `attempt-${index + 1}`));
      if (hostile.file === "diagnosis.json")
        expect(Object.keys(files), what).not.toContain("diagnosis.json");
      expect(Object.keys(files), what).not.toContain("trajectory.invalid.json");
      for (const text of Object.values(files)) {
        expect(text, what).not.toContain(SECRET);
        expect(text, what).not.toContain("OPENAI_API_KEY");
        expect(text.length, what).toBeLessThan(MiB);
      }
    }
  }, 240_000);
});
