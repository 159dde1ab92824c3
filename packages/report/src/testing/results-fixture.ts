import { join } from "node:path";
import { ATTEMPT_FILES, attemptDir, writeRunInfo, writeSummary } from "@distdebug/results";
import {
  type Attempt,
  type Diagnosis,
  type DiagnosisScores,
  type GoldBlock,
  type Incident,
  RunConfig,
  type RunInfo,
  type Summary,
  serialize,
  type Trajectory,
  writeFileAtomic,
} from "@distdebug/schema";
import { type AttemptRecord, type IncidentRecord, summarize } from "@distdebug/stats";
import type { ReportArtifact } from "../report-incident.js";
import type { ReportSources } from "../sources.js";
import { inMemorySources } from "../sources.js";

// Test fixture (not exported): a small, valid results folder written by hand.

type Span = { path: string; startLine: number; endLine: number };

interface FixtureAttempt {
  status: Attempt["status"];
  /** Undefined: no diagnosis.json. */
  blocks?: Span[];
  metrics: {
    blockCoverage: number;
    blockPrecision: number;
    fileCoverage: number;
    linePrecision: number;
  };
  commands: string[];
  /** attempt.json `durationMs`. */
  durationMs: number;
}

interface FixtureIncident {
  incident: Pick<Incident, "id" | "title" | "system" | "languages" | "category" | "clues">;
  /** The report and artifacts the agent was given. */
  report: string;
  artifacts: ReportArtifact[];
  gold: GoldBlock[];
  files: Record<string, string>;
  attempts: FixtureAttempt[];
}

function source(lines: number, name: string): string {
  return `${Array.from({ length: lines }, (_, index) => `${name} line ${index + 1}`).join("\n")}\n`;
}

const HASH = "a".repeat(64);

export const FIXTURE_INCIDENTS: FixtureIncident[] = [
  {
    incident: {
      id: "alpha-1",
      title: "Writes lost after a leader change",
      system: "alpha",
      languages: ["java"],
      category: "concurrency",
      clues: { reportNamesCausalMethod: true, usableStackTrace: true },
    },
    report: "# Writes lost\n\nAfter the leader changed, acknowledged writes were gone.\n",
    artifacts: [
      {
        path: "logs/server-1.log",
        kind: "log",
        description: "the old leader",
        content: "10:00:01 INFO leader elected\n10:00:02 WARN lock released\n",
      },
    ],
    gold: [
      {
        path: "src/Server.java",
        startLine: 10,
        endLine: 14,
        note: "the lock is released too early",
      },
    ],
    files: { "src/Server.java": source(30, "Server.java") },
    attempts: [
      {
        status: "succeeded",
        blocks: [{ path: "src/Server.java", startLine: 10, endLine: 14 }],
        metrics: { blockCoverage: 1, blockPrecision: 1, fileCoverage: 1, linePrecision: 1 },
        commands: ["grep -rn lock /workspace/src", "sed -n 1,30p /workspace/src/Server.java"],
        durationMs: 4000,
      },
      {
        status: "succeeded",
        blocks: [{ path: "src/Server.java", startLine: 20, endLine: 22 }],
        metrics: { blockCoverage: 0, blockPrecision: 0, fileCoverage: 1, linePrecision: 0 },
        commands: ["ls /workspace"],
        durationMs: 6000,
      },
    ],
  },
  {
    incident: {
      id: "beta-2",
      // Incident text is shown as text: markup in it must not render.
      title: "Lease <b>expires</b> before renewal",
      system: "beta",
      languages: ["go"],
      category: "logic",
      clues: { reportNamesCausalMethod: false, usableStackTrace: false },
    },
    report: "Leases expire early.\n<img src=x onerror=alert(1)>\n",
    artifacts: [
      {
        path: "logs/lease.log",
        kind: "log",
        content: "renew failed <script>alert(2)</script>\n",
      },
    ],
    gold: [
      { path: "pkg/lease.go", startLine: 5, endLine: 9 },
      { path: "pkg/lease.go", startLine: 20, endLine: 25 },
    ],
    files: { "pkg/lease.go": source(40, "lease.go") },
    attempts: [
      {
        status: "succeeded",
        blocks: [{ path: "pkg/lease.go", startLine: 5, endLine: 9 }],
        metrics: { blockCoverage: 0.5, blockPrecision: 1, fileCoverage: 1, linePrecision: 1 },
        commands: ["cat /task/report.md"],
        durationMs: 1000,
      },
      {
        status: "agent-error",
        metrics: { blockCoverage: 0, blockPrecision: 0, fileCoverage: 0, linePrecision: 0 },
        commands: ["false"],
        durationMs: 3000,
      },
    ],
  },
  {
    incident: {
      id: "gamma-3",
      title: "Node rejoins with a stale view",
      system: "gamma",
      languages: ["python"],
      category: "logic",
      clues: { reportNamesCausalMethod: true, usableStackTrace: false },
    },
    report: "A node rejoined the cluster with an old membership view.\n",
    artifacts: [],
    gold: [{ path: "app/node.py", startLine: 3, endLine: 6 }],
    files: { "app/node.py": source(12, "node.py"), "app/other.py": source(8, "other.py") },
    attempts: [
      {
        status: "succeeded",
        blocks: [{ path: "app/node.py", startLine: 2, endLine: 6 }],
        metrics: { blockCoverage: 1, blockPrecision: 0.5, fileCoverage: 1, linePrecision: 0.8 },
        commands: ["python3 -c 'print(1)'"],
        durationMs: 9000,
      },
      {
        status: "succeeded",
        blocks: [{ path: "app/other.py", startLine: 1, endLine: 3 }],
        metrics: { blockCoverage: 0, blockPrecision: 0, fileCoverage: 0, linePrecision: 0 },
        commands: ["cat /workspace/app/other.py"],
        durationMs: 11000,
      },
    ],
  },
];

function scoresOf(fixture: FixtureIncident, attempt: FixtureAttempt): DiagnosisScores {
  const blocks = attempt.blocks ?? [];
  const overlaps = (a: Span, b: Span) =>
    a.path === b.path && a.startLine <= b.endLine && a.endLine >= b.startLine;
  return {
    format: "distdebug.diagnosis_scores/1",
    incidentId: fixture.incident.id,
    valid: attempt.blocks !== undefined,
    metrics: {
      ...attempt.metrics,
      repositoryShare: 0.01,
      reachedAll: attempt.metrics.blockCoverage === 1,
    },
    goldBlocks: fixture.gold.map((gold) => {
      const by = blocks.flatMap((block, index) => (overlaps(block, gold) ? [index] : []));
      return {
        path: gold.path,
        startLine: gold.startLine,
        endLine: gold.endLine,
        atoms: 3,
        reached: by.length > 0,
        reachedBy: by,
        fileNamed: blocks.some((block) => block.path === gold.path),
      };
    }),
    spans: blocks.map((block) => ({
      kind: "lines" as const,
      path: block.path,
      startLine: block.startLine,
      endLine: block.endLine,
      definitions: [],
      atoms: 3,
      rows: block.endLine - block.startLine + 1,
      goldAtoms: fixture.gold.some((gold) => overlaps(block, gold)) ? 3 : 0,
      phantomAtoms: 0,
      earnsCoverage: true,
      warnings: [],
    })),
    counts: {
      predictedAtoms: 3 * blocks.length,
      goldAtoms: 3 * fixture.gold.length,
      correctAtoms: 0,
      phantomAtoms: 0,
      coverageAtoms: 0,
      coverageRows: 0,
      coverageBudget: 20,
      namedRows: 0,
      correctRows: 0,
      goldRows: 0,
      repositoryRows: 1000,
      repositoryFiles: 10,
      fileBudget: 3,
      creditedFiles: 0,
    },
    warnings:
      attempt.blocks === undefined
        ? [{ code: "invalid-diagnosis", message: "no valid diagnosis" }]
        : [],
    parameters: {
      coverageSpanLimit: 40,
      coverageSpanCount: 20,
      coverageRowBudget: 200,
      coverageRowFloor: 20,
      coverageRepoShare: 0.02,
      coverageFileFloor: 3,
      maxDiagnosisBlocks: 200,
    },
    versions: { evaluator: "0.1.0", grammars: {} },
  };
}

function trajectoryOf(
  fixture: FixtureIncident,
  attempt: FixtureAttempt,
  usage: Attempt["usage"],
): Trajectory {
  return {
    format: "distdebug.trajectory/1",
    incidentId: fixture.incident.id,
    agent: { name: "fixture-agent", version: "1.0.0" },
    model: { name: "test-model" },
    exitStatus: attempt.status === "succeeded" ? "submitted" : "error",
    usage,
    steps: [
      { type: "message", role: "system", content: "You are debugging a distributed system." },
      {
        type: "message",
        role: "user",
        content: `Incident ${fixture.incident.id}: <find the cause>`,
      },
      {
        type: "model-call",
        model: "test-model",
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        cachedTokens: 0,
        costUsd: usage.costUsd,
        durationMs: 1200,
      },
      ...attempt.commands.map((command, index) => ({
        type: "command" as const,
        command,
        exitCode: command === "false" ? 1 : 0,
        output: `output of step ${index + 1}\n<b>not bold</b>`,
        durationMs: 15,
      })),
    ],
    durationMs: 4000,
  };
}

/** Writes the fixture results folder into `dir` and returns its summary and sources. */
export async function writeResultsFixture(
  dir: string,
  options: { name?: string; seed?: number } = {},
): Promise<{ summary: Summary; sources: ReportSources }> {
  const name = options.name ?? "fixture-config";
  const records: AttemptRecord[] = [];
  const incidents: IncidentRecord[] = [];
  const run: RunInfo = {
    format: "distdebug.run/1",
    name,
    createdAt: "2026-12-02T10:00:00.000Z",
    config: RunConfig.parse({ name, agent: { type: "baseline" }, run: { attempts: 2 } }),
    configHash: HASH,
    harness: { version: "0.1.0", packages: {} },
    dataset: { name: "fixture", version: "1", digest: HASH },
    host: { platform: "linux", arch: "x64", node: "v20", cpus: 2, memoryBytes: 1 },
  };
  await writeRunInfo(dir, run);
  for (const fixture of FIXTURE_INCIDENTS) {
    incidents.push({ ...fixture.incident, goldBlocks: fixture.gold.length });
    for (const [index, attempt] of fixture.attempts.entries()) {
      const number = index + 1;
      const folder = attemptDir(dir, fixture.incident.id, number);
      const usage = {
        inputTokens: 1000 * number,
        outputTokens: 100 * number,
        cachedTokens: 0,
        calls: 1,
        costUsd: 0.01 * number,
      };
      const scores = scoresOf(fixture, attempt);
      const record: Attempt = {
        format: "distdebug.attempt/1",
        incidentId: fixture.incident.id,
        attempt: number,
        status: attempt.status,
        startedAt: "2026-12-02T10:00:00.000Z",
        endedAt: new Date(
          Date.parse("2026-12-02T10:00:00.000Z") + attempt.durationMs,
        ).toISOString(),
        durationMs: attempt.durationMs,
        timings: {},
        usage,
        inputHash: HASH,
        outputs: {},
        sandbox: {
          backend: "bubblewrap",
          policy: RunConfig.parse({ agent: { type: "baseline" } }).environment.sandbox,
        },
      };
      if (attempt.blocks) {
        const diagnosis: Diagnosis = {
          format: "distdebug.diagnosis/1",
          incidentId: fixture.incident.id,
          blocks: attempt.blocks.map((block) => ({
            ...block,
            reason: `suspicious code in ${block.path}`,
          })),
          summary: "the cause, in a sentence",
        };
        await writeFileAtomic(join(folder, ATTEMPT_FILES.diagnosis), serialize(diagnosis));
      }
      await writeFileAtomic(
        join(folder, ATTEMPT_FILES.trajectory),
        serialize(trajectoryOf(fixture, attempt, usage)),
      );
      await writeFileAtomic(join(folder, ATTEMPT_FILES.scores), serialize(scores));
      await writeFileAtomic(join(folder, ATTEMPT_FILES.attempt), serialize(record));
      records.push({
        incidentId: fixture.incident.id,
        attempt: number,
        status: attempt.status,
        usage,
        metrics: scores.metrics,
      });
    }
  }
  const summary = summarize({
    name,
    attempts: records,
    incidents,
    attemptsPerIncident: 2,
    seed: options.seed ?? 1,
    resamples: 2000,
  });
  await writeSummary(dir, summary);
  const sources = inMemorySources({
    files: Object.fromEntries(
      FIXTURE_INCIDENTS.map((fixture) => [fixture.incident.id, fixture.files]),
    ),
    gold: Object.fromEntries(
      FIXTURE_INCIDENTS.map((fixture) => [fixture.incident.id, fixture.gold]),
    ),
    incidents: Object.fromEntries(
      FIXTURE_INCIDENTS.map((fixture) => [
        fixture.incident.id,
        {
          title: fixture.incident.title,
          system: fixture.incident.system,
          languages: fixture.incident.languages,
          report: fixture.report,
          artifacts: fixture.artifacts,
        },
      ]),
    ),
  });
  return { summary, sources };
}
