import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { cliNodeArgs } from "../testing/spawn-cli.js";

describe("distdebug validate", () => {
  it("names the kind of each example file and exits 0", async () => {
    const io = captureIO();
    const code = await runCli(
      [
        "validate",
        "examples/files/diagnosis.json",
        "examples/files/trajectory.json",
        "examples/files/mini-swe-agent.traj.json",
        "examples/files/config.yaml",
      ],
      io,
    );
    expect(io.err()).toBe("");
    expect(code).toBe(0);
    expect(io.out()).toBe(
      [
        "ok     examples/files/diagnosis.json: diagnosis (distdebug.diagnosis/1)",
        "ok     examples/files/trajectory.json: trajectory (distdebug.trajectory/1)",
        "ok     examples/files/mini-swe-agent.traj.json: trajectory (mini-swe-agent-1.1)",
        "ok     examples/files/config.yaml: config (distdebug.config/1)",
        "",
      ].join("\n"),
    );
  });

  it("exits 1 naming the file and each bad JSON path", async () => {
    const dir = await testdir({
      "bad.json": JSON.stringify({
        format: "distdebug.diagnosis/1",
        incidentId: "",
        blocks: [{ path: "a.go", startLine: -1 }],
      }),
    });
    const io = captureIO({ cwd: dir });
    expect(await runCli(["validate", "bad.json"], io)).toBe(1);
    expect(io.out()).toContain(
      "error  bad.json: not a valid diagnosis (distdebug.diagnosis/1); 2 problems:",
    );
    expect(io.out()).toContain("$.incidentId: expected a string of length >= 1");
    expect(io.out()).toContain(
      "$.blocks[0].startLine: expected a number >= 1, found the number -1",
    );
  });

  it("gives each unusable input a one-line error in a real process, never a stack trace", async () => {
    const dir = await testdir({
      "text.json": "hello, not json",
      "empty.json": "",
      "newer.json": '{"format":"distdebug.diagnosis/9"}',
      "odd.json": '{"format":"acme.thing/1"}',
    });
    await writeFile(join(dir, "huge.json"), Buffer.alloc(50 * 1024 * 1024, 0x20));
    const files = [
      "text.json",
      "empty.json",
      "sub",
      "missing.json",
      "huge.json",
      "newer.json",
      "odd.json",
    ];
    await mkdir(join(dir, "sub"));
    const result = spawnSync(process.execPath, [...cliNodeArgs(), "validate", ...files], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(result.status).toBe(1);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(files.length);
    expect(lines[0]).toMatch(/^error {2}text\.json: not valid JSON/);
    expect(lines[1]).toBe("error  empty.json: the file is empty; expected a JSON document");
    expect(lines[2]).toBe("error  sub: is a directory, not a file");
    expect(lines[3]).toBe("error  missing.json: no such file");
    expect(lines[4]).toBe(
      "error  huge.json: the file is 50.0 MiB, over the 32.0 MiB limit for DistDebug files",
    );
    expect(lines[5]).toMatch(
      /^error {2}newer\.json: distdebug\.diagnosis\/9 was written by a newer DistDebug/,
    );
    expect(lines[6]).toMatch(/^error {2}odd\.json: "format" is "acme.thing\/1", not one of /);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("prints JSON with --json and a usage error without files", async () => {
    const io = captureIO();
    expect(await runCli(["validate", "--json", "examples/files/diagnosis.json"], io)).toBe(0);
    expect(JSON.parse(io.out())).toEqual({
      ok: true,
      files: [
        {
          file: "examples/files/diagnosis.json",
          ok: true,
          kind: "diagnosis",
          format: "distdebug.diagnosis/1",
        },
      ],
    });
    const usage = captureIO();
    expect(await runCli(["validate"], usage)).toBe(2);
    expect(usage.err()).toContain("name at least one file");
  });
});
