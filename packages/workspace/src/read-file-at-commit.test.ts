import { beforeAll, describe, expect, it } from "vitest";
import { readFileAtCommit } from "./read-file-at-commit.js";
import { git, type SourceFixture, sourceFixture } from "./testing/fixture-repo.js";

let source: SourceFixture;
beforeAll(async () => {
  source = await sourceFixture();
});

describe("readFileAtCommit", () => {
  it("reads the pristine file at a commit (needles not scrubbed), on both engines", async () => {
    for (const engine of ["git", "isomorphic-git"] as const) {
      const bytes = await readFileAtCommit({
        source: source.dir,
        commit: source.buggy,
        path: "CHANGES.txt",
        engine,
      });
      expect(bytes.toString("utf8")).toBe(
        `${git(source.dir, "show", `${source.buggy}:CHANGES.txt`)}\n`,
      );
      expect(bytes.toString("utf8")).toContain(source.issueKey);
      const fixed = await readFileAtCommit({
        source: source.dir,
        commit: source.fix,
        path: "src/main/java/org/example/Server.java",
        engine,
      });
      expect(fixed.toString("utf8")).toContain(source.fixLine);
    }
  });

  it("throws FILE_NOT_FOUND for a folder, a submodule or a missing path", async () => {
    for (const path of ["src", "vendor/lib", "nope.txt", "README.md/x"])
      await expect(
        readFileAtCommit({ source: source.dir, commit: source.buggy, path }),
      ).rejects.toMatchObject({ code: "FILE_NOT_FOUND" });
  });
});
