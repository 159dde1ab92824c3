import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Dataset, loadDataset } from "@distdebug/dataset";
import { DistDebugError, type FileIssue, parseRunConfig } from "@distdebug/schema";
import { exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { checkRunInputs } from "./preflight.js";
import { runBenchmark } from "./run-benchmark.js";

let dataset: Dataset;
beforeAll(async () => {
  dataset = await loadDataset(exampleDatasetDir());
});

async function problems(run: () => Promise<unknown>): Promise<FileIssue[]> {
  const error = await run().then(
    () => expect.unreachable("the run was allowed to start"),
    (caught: unknown) => caught,
  );
  expect(DistDebugError.isInstance(error) && error.code).toBe("INVALID_CONFIG");
  return ((error as DistDebugError).data as { issues: FileIssue[] }).issues;
}

describe("checkRunInputs", () => {
  it("reports every config problem at once: bind sources, the program, its script, the agent, mirrors", async () => {
    const dir = await testdir({ "agent/run.py": "print('hi')\n" });
    const config = parseRunConfig({
      agent: { type: "command", command: ["python4", "/opt/agent/rn.py", "/opt/agent/run.py"] },
      environment: {
        sandbox: {
          readOnlyBinds: [
            { source: join(dir, "agent"), target: "/opt/agent" },
            { source: join(dir, "jdk-typo"), target: "/opt/java" },
          ],
        },
      },
    });
    const found = await problems(() =>
      checkRunInputs({
        config,
        incidents: dataset.incidents,
        mirrors: [join(dir, "mirrors")],
      }),
    );
    expect(found).toEqual([
      {
        path: "$.environment.sandbox.readOnlyBinds[1].source",
        expected: "a host path that exists",
        found: `${JSON.stringify(join(dir, "jdk-typo"))}, which does not exist`,
      },
      {
        path: "$.agent.command[0]",
        expected:
          "a program on the sandbox's PATH (/usr/local/bin:/usr/bin:/bin) or an absolute path inside the sandbox",
        found: '"python4", in none of those folders',
      },
      {
        path: "$.agent.command[1]",
        expected: "a file that exists inside the sandbox",
        found: `"/opt/agent/rn.py", whose host path ${join(dir, "agent", "rn.py")} does not exist`,
      },
      {
        path: "--mirror[0]",
        expected: "a folder of mirrors or a git folder",
        found: `${JSON.stringify(join(dir, "mirrors"))}, which does not exist`,
      },
    ]);
  });

  it("names a program the sandbox cannot see, a mini agent without a model, and a missing repository", async () => {
    const outside = parseRunConfig({
      agent: { type: "command", command: ["/home/someone/agent.sh"] },
    });
    expect(await problems(() => checkRunInputs({ config: outside, incidents: [] }))).toEqual([
      {
        path: "$.agent.command[0]",
        expected:
          "a program inside the sandbox (under /usr, or under a target of environment.sandbox.readOnlyBinds)",
        found:
          '"/home/someone/agent.sh", which the sandbox does not see: bind its folder read-only',
      },
    ]);
    const mini = parseRunConfig({
      agent: { type: "mini" },
      environment: { sandbox: { readOnlyBinds: [{ source: "/nonexistent/jdk" }] } },
    });
    const [noModel, bind] = await problems(() => checkRunInputs({ config: mini, incidents: [] }));
    expect(noModel?.path).toBe("$.agent.type (mini)");
    expect(noModel?.found).toMatch(/agent\.type mini needs a model section/);
    expect(bind?.path).toBe("$.environment.sandbox.readOnlyBinds[0].source");
    // Alone, the agent's own error is thrown as it is (one line, its own code).
    const alone = parseRunConfig({ agent: { type: "mini" } });
    await expect(checkRunInputs({ config: alone, incidents: [] })).rejects.toThrow(
      /^agent\.type mini needs a model section/,
    );
    const copy = await testdir();
    const incident = dataset.incidents[0]!;
    await mkdir(join(copy, "repo"));
    const moved = {
      ...incident,
      repository: {
        kind: "history" as const,
        dir: join(copy, "repo"),
        buggyCommit: "0".repeat(40),
      },
    };
    const [missingRepo] = await problems(() =>
      checkRunInputs({
        config: parseRunConfig({ agent: { type: "baseline" } }),
        incidents: [moved],
      }),
    );
    expect(missingRepo?.found).toBe(
      `${JSON.stringify(join(copy, "repo", "history.json"))}, which does not exist`,
    );
  });

  it("accepts a command agent whose program is on the PATH and whose script is bound", async () => {
    const dir = await testdir({ "agent/run.py": "print('hi')\n" });
    const config = parseRunConfig({
      agent: { type: "command", command: ["sh", "/opt/agent/run.py", "/output/x", "--flag"] },
      environment: {
        sandbox: { readOnlyBinds: [{ source: join(dir, "agent"), target: "/opt/agent/" }] },
      },
    });
    const agent = await checkRunInputs({ config, incidents: dataset.incidents });
    expect(agent.name).toBe("command");
  });

  it("stops runBenchmark before any attempt or results folder", async () => {
    const dir = await testdir();
    await writeFile(join(dir, "keep"), "");
    const config = parseRunConfig({
      agent: { type: "command", command: ["sh", "/opt/agent/run.sh"] },
      environment: {
        sandbox: { readOnlyBinds: [{ source: join(dir, "nope"), target: "/opt/agent" }] },
      },
    });
    const outDir = join(dir, "results");
    const found = await problems(() =>
      runBenchmark({
        config,
        dataset,
        incidents: dataset.incidents.slice(0, 1),
        outDir,
        cacheDir: dir,
      }),
    );
    expect(found.map((problem) => problem.path)).toEqual([
      "$.environment.sandbox.readOnlyBinds[0].source",
      "$.agent.command[1]",
    ]);
    await expect(import("node:fs/promises").then((fs) => fs.stat(outDir))).rejects.toThrow(
      /ENOENT/,
    );
  });
});
