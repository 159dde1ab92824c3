import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { readFileChecked, writeFileAtomic } from "./files.js";

describe("readFileChecked", () => {
  it("names missing files, directories and files over the limit", async () => {
    const dir = await testdir({ "big.json": "x".repeat(2048), "ok.json": "{}" });
    await expect(readFileChecked(join(dir, "none.json"))).rejects.toMatchObject({
      code: "FILE_NOT_FOUND",
    });
    await expect(readFileChecked(dir)).rejects.toMatchObject({
      code: "NOT_A_FILE",
      message: `${dir}: is a directory, not a file`,
    });
    await expect(readFileChecked(join(dir, "big.json"), { maxBytes: 1024 })).rejects.toMatchObject({
      code: "FILE_TOO_LARGE",
    });
    expect((await readFileChecked(join(dir, "ok.json"))).toString()).toBe("{}");
  });
});

describe("writeFileAtomic", () => {
  it("replaces the file whole and leaves no temporary file", async () => {
    const dir = await testdir();
    const path = join(dir, "sub", "a.json");
    await writeFileAtomic(path, "first\n");
    await writeFile(join(dir, "other"), "");
    await writeFileAtomic(path, "second\n");
    expect(await readFile(path, "utf8")).toBe("second\n");
    expect(await readdir(join(dir, "sub"))).toEqual(["a.json"]);
  });
});
