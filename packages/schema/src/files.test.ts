import { execFileSync } from "node:child_process";
import { readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import {
  listFilesBelow,
  readFileChecked,
  readFileIfExists,
  tempSiblingPath,
  writeFileAtomic,
} from "./files.js";

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

  it("without following links, refuses links, FIFOs and devices without blocking", async () => {
    const dir = await testdir({ "secret.txt": "host secret" });
    await symlink(join(dir, "secret.txt"), join(dir, "link.json"));
    await symlink("/dev/zero", join(dir, "zero.json"));
    execFileSync("mkfifo", [join(dir, "fifo.json")]);
    const untrusted = { followLinks: false, label: "/output/x.json" } as const;
    for (const [name, kind] of [
      ["link.json", "a symbolic link"],
      ["zero.json", "a symbolic link"],
      ["fifo.json", "a FIFO"],
    ] as const) {
      await expect(readFileChecked(join(dir, name), untrusted)).rejects.toMatchObject({
        code: "NOT_A_FILE",
        message: `/output/x.json: is ${kind}, not a file`,
      });
    }
    // Followed (trusted inputs), a device or FIFO is still refused rather than read or waited on.
    await expect(readFileChecked(join(dir, "zero.json"))).rejects.toMatchObject({
      message: `${join(dir, "zero.json")}: is a device, not a file`,
    });
    await expect(readFileChecked(join(dir, "fifo.json"))).rejects.toMatchObject({
      code: "NOT_A_FILE",
    });
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

describe("listFilesBelow, readFileIfExists, tempSiblingPath", () => {
  it("lists sorted relative paths, leaves out what skip names, and links only with allEntries", async () => {
    const dir = await testdir({
      "b.txt": "b",
      "a/z.go": "z",
      "a/.git": "gitdir: x",
      ".git/HEAD": "h",
    });
    await symlink("b.txt", join(dir, "link"));
    expect(await listFilesBelow(dir)).toEqual([".git/HEAD", "a/.git", "a/z.go", "b.txt"]);
    expect(
      await listFilesBelow(dir, { skip: (path) => path === ".git", allEntries: true }),
    ).toEqual(["a/.git", "a/z.go", "b.txt", "link"]);
  });

  it("reads a file or gives undefined when it is missing, and throws other errors", async () => {
    const dir = await testdir({ "a.json": "{}" });
    expect((await readFileIfExists(join(dir, "a.json")))?.toString()).toBe("{}");
    expect(await readFileIfExists(join(dir, "none.json"))).toBeUndefined();
    await expect(readFileIfExists(dir)).rejects.toMatchObject({ code: "EISDIR" });
  });

  it("names a hidden sibling with the tag, the process id and a random part", () => {
    const a = tempSiblingPath("/cache/repos/x.git", ".tmp-");
    expect(a).toMatch(new RegExp(`^/cache/repos/\\.x\\.git\\.tmp-${process.pid}-[0-9a-f]{8}$`));
    expect(tempSiblingPath("/cache/repos/x.git", ".tmp-")).not.toBe(a);
  });
});
