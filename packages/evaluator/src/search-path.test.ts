import type { Trajectory, TrajectoryStep } from "@distdebug/schema";
import { DiagnosisScores } from "@distdebug/schema";
import { describe, expect, it } from "vitest";
import { createEvaluator, memoryReader } from "./index.js";

const STORE = [
  "package app;",
  "",
  "public class Store {",
  "  public int apply(int x) {",
  "    int y = x + 1;", // 5: gold rows 5, 6, 7, 9 (8 is a lone brace)
  "    if (y > 10) {",
  "      y = 10;",
  "    }",
  "    return y;",
  "  }",
  "",
  "  public int other() {",
  "    return 0;",
  "  }",
  "}",
];
const OTHER = "package app;\n\npublic class Other {\n  int size() {\n    return 3;\n  }\n}\n";
const files = { "src/app/Store.java": `${STORE.join("\n")}\n`, "src/app/Other.java": OTHER };
const gold = {
  incidentId: "app-1",
  blocks: [{ path: "src/app/Store.java", startLine: 5, endLine: 9 }],
};
const wrong = {
  format: "distdebug.diagnosis/1",
  incidentId: "app-1",
  blocks: [{ path: "src/app/Store.java", startLine: 12, endLine: 13 }],
};
const right = { ...wrong, blocks: [{ path: "src/app/Store.java", startLine: 6, endLine: 7 }] };

const numbered = (from: number, to: number, format: (n: number, line: string) => string) =>
  STORE.slice(from - 1, to)
    .map((line, i) => format(from + i, line))
    .join("\n");
const catN = (from: number, to: number) =>
  numbered(from, to, (n, line) => `${String(n).padStart(6)}\t${line}`);

/** A mini-agent-shaped trajectory: per turn a model call, the reply, the command and its output. */
function miniTrajectory(turns: { command: string; output: string }[]): Trajectory {
  const start = Date.parse("2026-01-01T00:00:00Z");
  const steps: TrajectoryStep[] = [
    { type: "message", role: "system", content: "You are an agent." },
    { type: "message", role: "user", content: "Find the cause: Store.apply returns 11." },
  ];
  turns.forEach(({ command, output }, i) => {
    const at = new Date(start + (i + 1) * 10_000).toISOString();
    steps.push(
      {
        type: "model-call",
        inputTokens: 1000 * (i + 1),
        outputTokens: 10,
        cachedTokens: 0,
        costUsd: null,
      },
      { type: "message", role: "assistant", content: `THOUGHT\n\`\`\`bash\n${command}\n\`\`\`` },
      { type: "command", command, exitCode: 0, output, at },
      { type: "message", role: "user", content: `<output>\n${output}</output>`, at },
    );
  });
  return {
    format: "distdebug.trajectory/1",
    agent: { name: "mini" },
    exitStatus: "submitted",
    usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, calls: 0, costUsd: null },
    steps,
    startedAt: new Date(start).toISOString(),
  };
}

/** Lists, greps, `cat -n`s the top of the causal file at turn 4, `sed -n`s the block at turn 6. */
const SCRIPTED = [
  { command: "ls -R src", output: "src:\napp\n\nsrc/app:\nOther.java\nStore.java\n" },
  { command: "grep -rn 'x + 1' src", output: "src/app/Store.java:5:    int y = x + 1;\n" },
  { command: "cat -n src/app/Other.java", output: OTHER },
  { command: "cat -n src/app/Store.java | head -4", output: `${catN(1, 4)}\n` },
  { command: "wc -l src/app/Store.java", output: "15 src/app/Store.java\n" },
  { command: "sed -n 5,9p src/app/Store.java", output: `${STORE.slice(4, 9).join("\n")}\n` },
];

async function score(diagnosis: unknown, trajectory: Trajectory | null | undefined) {
  const evaluator = createEvaluator({ readFile: memoryReader(files) });
  const scores = await evaluator.score({
    diagnosis,
    gold,
    ...(trajectory === undefined ? {} : { trajectory }),
  });
  return DiagnosisScores.parse(scores);
}

describe("the search path: which gold code the agent's observations showed, when, at what cost", () => {
  it("a scripted run: the file at turn 4 (cat -n of its top), the block at turn 6 (sed -n), answered wrong", async () => {
    const { search } = await score(wrong, miniTrajectory(SCRIPTED));
    expect(search).toEqual({
      observed: true,
      turns: 6,
      causalFilesShown: ["src/app/Store.java"],
      causalBlocksShown: [0],
      firstCausalFileStep: 4,
      firstCausalBlockStep: 6,
      tokensToFirstCausalFile: 1000 + 2000 + 3000 + 4000 + 4 * 10,
      tokensToFirstCausalBlock: 21_000 + 6 * 10,
      secondsToFirstCausalFile: 40,
      secondsToFirstCausalBlock: 60,
      blocks: [{ outcome: "shown-not-named", fileStep: 4, blockStep: 6 }],
    });
  });

  it("named wins over shown; one grep line of a four-row block is not the block", async () => {
    const { search } = await score(right, miniTrajectory(SCRIPTED.slice(0, 2)));
    expect(search?.blocks).toEqual([{ outcome: "named", fileStep: null, blockStep: null }]);
    expect(search?.firstCausalBlockStep).toBeNull();
  });

  it("an agent that never reads the causal file: never-shown", async () => {
    const { search } = await score(wrong, miniTrajectory([SCRIPTED[0]!, SCRIPTED[2]!]));
    expect(search?.blocks).toEqual([{ outcome: "never-shown", fileStep: null, blockStep: null }]);
    expect(search?.causalFilesShown).toEqual([]);
  });

  it("the file named by a command that printed other text is file-only only when its rows appear", async () => {
    const { search } = await score(wrong, miniTrajectory([SCRIPTED[4]!, SCRIPTED[3]!]));
    expect(search?.blocks).toEqual([{ outcome: "file-only", fileStep: 2, blockStep: null }]);
  });

  it.for([
    ["cat -n", catN(4, 10)],
    ["nl -ba", numbered(4, 10, (n, line) => `${String(n).padStart(6)}\t${line}`)],
    ["grep -n", numbered(5, 9, (n, line) => `${n}:${line}`)],
    ["grep -rn", numbered(5, 9, (n, line) => `src/app/Store.java:${n}:${line}`)],
    ["grep -C context", numbered(5, 9, (n, line) => `src/app/Store.java-${n}-${line}`)],
    ["an editor's view", numbered(5, 9, (n, line) => `${n}|${line}`)],
    [
      "re-indented with CRLF",
      numbered(5, 9, (_n, line) => `\t\t${line.trim().replace(/ /g, "  ")}\r`),
    ],
  ])("the block is recognized through %s", async ([, output]) => {
    const { search } = await score(
      wrong,
      miniTrajectory([{ command: "view", output: `${output}\n` }]),
    );
    expect(search?.blocks[0]?.outcome).toBe("shown-not-named");
    expect(search?.firstCausalBlockStep).toBe(1);
  });

  it("half the rows in one output is enough; the rows spread over two outputs are not", async () => {
    const half = await score(
      wrong,
      miniTrajectory([{ command: "x", output: `${STORE[4]}\n${STORE[5]}\n` }]),
    );
    expect(half.search?.blocks[0]?.outcome).toBe("shown-not-named");
    const spread = await score(
      wrong,
      miniTrajectory([
        { command: "x", output: `${STORE[4]}\n` },
        { command: "y", output: `${STORE[5]}\n` },
      ]),
    );
    expect(spread.search?.blocks[0]?.outcome).toBe("never-shown");
  });

  it("without observations every block not named is unknown, never never-shown", async () => {
    const none = await score(wrong, null);
    expect(none.search).toMatchObject({
      observed: false,
      turns: 0,
      blocks: [{ outcome: "unknown" }],
    });
    const named = await score(right, null);
    expect(named.search?.blocks[0]?.outcome).toBe("named");
    const silent = miniTrajectory([]);
    silent.steps.push({ type: "message", role: "assistant", content: "I think it is apply." });
    expect((await score(wrong, silent)).search?.blocks[0]?.outcome).toBe("unknown");
    // An invalid diagnosis keeps its search path.
    const invalid = await score({ nonsense: true }, miniTrajectory(SCRIPTED));
    expect(invalid.valid).toBe(false);
    expect(invalid.search?.firstCausalBlockStep).toBe(6);
    // Scored alone (as `evaluate` does): no search path at all.
    expect((await score(wrong, undefined)).search).toBeUndefined();
  });

  it("a command agent's trajectory (commands only) counts each command as a turn", async () => {
    const trajectory = miniTrajectory([]);
    trajectory.steps = SCRIPTED.map(({ command, output }) => ({
      type: "command",
      command,
      exitCode: 0,
      output,
    }));
    const { search } = await score(wrong, trajectory);
    expect(search).toMatchObject({
      turns: 6,
      firstCausalFileStep: 4,
      firstCausalBlockStep: 6,
      tokensToFirstCausalBlock: null,
      secondsToFirstCausalBlock: null,
    });
  });

  it("a converted mini-swe-agent trajectory (reply, call, command) and a gateway's trailing calls give the same turns and tokens", async () => {
    const mini = miniTrajectory(SCRIPTED);
    const converted = mini.steps.filter(
      (step) => !(step.type === "message" && step.role === "user" && step !== mini.steps[1]),
    );
    // The reply before its call, as the conversion writes them.
    for (let i = 0; i + 1 < converted.length; i++)
      if (converted[i]?.type === "model-call") {
        [converted[i], converted[i + 1]] = [converted[i + 1]!, converted[i]!];
        i++;
      }
    const metered = [
      ...converted.filter((step) => step.type !== "model-call"),
      ...converted.filter((step) => step.type === "model-call"),
    ];
    for (const steps of [converted, metered]) {
      const { search } = await score(wrong, { ...mini, steps });
      expect(search).toMatchObject({
        turns: 6,
        firstCausalFileStep: 4,
        firstCausalBlockStep: 6,
        tokensToFirstCausalFile: 10_040,
        tokensToFirstCausalBlock: 21_060,
      });
    }
  });
});
