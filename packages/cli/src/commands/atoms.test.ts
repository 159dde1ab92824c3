import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

const source = "def f(x):\n    # double it\n    if x:\n        return x * 2\n    return 0\n";

describe("distdebug atoms", () => {
  it("prints each atom with the lines it owns and its first line", async () => {
    const dir = await testdir({ "pkg/mod.py": source });
    const io = captureIO({ cwd: dir });
    expect(await runCli(["atoms", "pkg/mod.py"], io)).toBe(0);
    expect(io.out()).toBe(
      [
        "pkg/mod.py: python, parsed, 4 atoms over 4 significant of 5 lines",
        "#0  function_definition          1            | def f(x):",
        "#1  if_statement                 3            | if x:",
        "#2  return_statement             4            | return x * 2",
        "#3  return_statement             5            | return 0",
        "",
      ].join("\n"),
    );
  });

  it("--source and --json give the atom index", async () => {
    const dir = await testdir({ "repo/pkg/mod.py": source });
    const io = captureIO({ cwd: dir });
    expect(await runCli(["atoms", "pkg/mod.py", "--source", "repo", "--json"], io)).toBe(0);
    const index = JSON.parse(io.out());
    expect(index.path).toBe("pkg/mod.py");
    expect(index.atoms.map((atom: { lines: number[] }) => atom.lines)).toEqual([
      [1],
      [3],
      [4],
      [5],
    ]);
  });

  it("a missing file is a one-line error", async () => {
    const dir = await testdir({});
    const io = captureIO({ cwd: dir });
    expect(await runCli(["atoms", "nope.go"], io)).toBe(1);
    expect(io.err()).toBe("distdebug atoms: nope.go: no such file in the repository\n");
  });
});
