import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { writeTarGz } from "@distdebug/submission";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

describe("distdebug verify", () => {
  it("names an archive that is not gzip, has no manifest, or is missing", async () => {
    const dir = await testdir({ "plain.tar.gz": "not an archive" });
    await writeFile(
      join(dir, "empty.tar.gz"),
      writeTarGz([{ path: "run.json", data: new TextEncoder().encode("{}") }]),
    );
    const cases: [string, RegExp][] = [
      ["plain.tar.gz", /plain\.tar\.gz: not a gzip-compressed archive/],
      [
        "empty.tar.gz",
        /empty\.tar\.gz: no manifest\.json; not a submission made by distdebug package/,
      ],
      ["absent.tar.gz", /absent\.tar\.gz: no such file/],
    ];
    for (const [file, message] of cases) {
      const io = captureIO({ cwd: dir });
      expect(await runCli(["verify", file], io)).toBe(1);
      expect(io.err()).toMatch(message);
      expect(io.err()).not.toContain("    at ");
    }
    const usage = captureIO({ cwd: dir });
    expect(await runCli(["verify"], usage)).toBe(2);
  });
});
