import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { DistDebugError } from "@distdebug/schema";
import { paxRecords, type RawTarEntry, rawTar, rawTarGz, testdir } from "@distdebug/test-utils";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readTarGz, readTarGzFile, writeTarGz } from "./tar.js";

const text = (value: string) => new TextEncoder().encode(value);

describe("writeTarGz and readTarGz", () => {
  it("round-trips any set of files byte for byte", () => {
    const segment = fc
      .stringMatching(/^[a-z0-9_.-]{1,40}$/)
      .filter((part) => part !== "." && part !== "..");
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            path: fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join("/")),
            data: fc.uint8Array({ maxLength: 2000 }),
          }),
          {
            selector: (entry) => entry.path,
            maxLength: 8,
          },
        ),
        (entries) => {
          const paths = new Set(entries.map((entry) => entry.path));
          // a path may not also be a folder of another path in a real archive
          fc.pre(
            entries.every(
              (entry) => ![...paths].some((other) => other.startsWith(`${entry.path}/`)),
            ),
          );
          const back = readTarGz(writeTarGz(entries));
          expect(back.map((entry) => entry.path)).toEqual(entries.map((entry) => entry.path));
          expect(back.map((entry) => Buffer.from(entry.data).toString("hex"))).toEqual(
            entries.map((entry) => Buffer.from(entry.data).toString("hex")),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it("is read by the system tar, and reads what the system tar writes", async () => {
    const dir = await testdir();
    const long = `${"d".repeat(90)}/${"e".repeat(90)}/file.json`;
    await writeFile(
      join(dir, "a.tar.gz"),
      writeTarGz([
        { path: "manifest.json", data: text("{}\n") },
        { path: long, data: text("x") },
      ]),
    );
    expect(
      execFileSync("tar", ["-tzf", join(dir, "a.tar.gz")], { encoding: "utf8" })
        .trim()
        .split("\n"),
    ).toEqual(["manifest.json", long]);
    const out = join(dir, "out");
    await mkdir(out);
    execFileSync("tar", ["-xzf", join(dir, "a.tar.gz"), "-C", out]);
    expect(await readFile(join(out, long), "utf8")).toBe("x");

    await mkdir(join(dir, "src/inc/attempt-1"), { recursive: true });
    await writeFile(join(dir, "src/inc/attempt-1/diagnosis.json"), '{"a":1}');
    await writeFile(join(dir, "src/run.json"), "{}");
    execFileSync("tar", ["-czf", join(dir, "b.tar.gz"), "-C", join(dir, "src"), "."]);
    const entries = readTarGz(await readFile(join(dir, "b.tar.gz")));
    expect(entries.map((entry) => entry.path).sort()).toEqual([
      "inc/attempt-1/diagnosis.json",
      "run.json",
    ]);
  });

  it("refuses links, paths that climb out, corrupt headers and bombs, naming the archive", async () => {
    const dir = await testdir();
    await mkdir(join(dir, "src"));
    await writeFile(join(dir, "src/target"), "secret");
    execFileSync("ln", ["-s", "/etc/passwd", join(dir, "src/link")]);
    execFileSync("tar", ["-czf", join(dir, "link.tar.gz"), "-C", join(dir, "src"), "link"]);
    const link = await readFile(join(dir, "link.tar.gz"));
    expect(() => readTarGz(link, { source: "link.tar.gz" })).toThrow(
      'link.tar.gz: link: a symbolic link (tar entry of type "2"); only regular files are allowed',
    );
    execFileSync("tar", [
      "-czf",
      join(dir, "climb.tar.gz"),
      "-C",
      join(dir, "src"),
      "-P",
      "--transform",
      "s,^,../,",
      "target",
    ]);
    const climb = await readFile(join(dir, "climb.tar.gz"));
    expect(() => readTarGz(climb, { source: "climb.tar.gz" })).toThrow(
      /climb.tar.gz: \.\.\/target: a path with \.\./,
    );

    const archive = Buffer.from(writeTarGz([{ path: "a.json", data: text("{}") }]));
    const tar = gunzipSync(archive);
    tar[0] = "b".charCodeAt(0);
    expect(() => readTarGz(gzipSync(tar), { source: "bad.tar.gz" })).toThrow(
      /bad.tar.gz: a tar header at byte 0 has a bad checksum/,
    );
    expect(() => readTarGz(text("not gzip"), { source: "x.tar.gz" })).toThrow(
      /x.tar.gz: not a gzip-compressed archive/,
    );
    const bomb = writeTarGz([{ path: "zeros", data: new Uint8Array(4 * 1024 * 1024) }]);
    try {
      readTarGz(bomb, { source: "bomb.tar.gz", maxBytes: 1024 * 1024 });
      expect.unreachable();
    } catch (error) {
      expect(DistDebugError.isInstance(error) && error.code).toBe("INVALID_ARCHIVE");
      expect((error as Error).message).toBe("bomb.tar.gz: larger than the limit once uncompressed");
    }
  });
});

describe("readTarGz refuses every unsafe entry with a one-line reason naming it", () => {
  const file = (path: string) => ({ path, data: text("{}") });
  const cases: [string, RawTarEntry[], string][] = [
    ["climb", [file("a/../../etc/passwd")], "a/../../etc/passwd: a path with .. that climbs out"],
    ["absolute", [file("/etc/passwd")], "/etc/passwd: an absolute or empty path"],
    ["dot alias", [file("a/./b.json")], "a/./b.json: an alias path"],
    ["empty alias", [file("a//b.json")], "a//b.json: an alias path"],
    ["duplicate", [file("a/b.json"), file("a/b.json")], "a/b.json: twice in the archive"],
    ["./ duplicate", [file("a.json"), file("./a.json")], "a.json: twice in the archive"],
    [
      "symlink",
      [{ path: "run.json", type: "2", linkName: "/etc/shadow" }],
      "run.json: a symbolic link",
    ],
    ["hard link", [{ path: "run.json", type: "1", linkName: "x" }], "run.json: a hard link"],
    [
      "file for folder",
      [file("zk/attempt-1"), file("zk/attempt-1/attempt.json")],
      "zk/attempt-1/attempt.json: expects zk/attempt-1 to be a folder, but zk/attempt-1 is a file",
    ],
    [
      "pax size record",
      [{ path: "pax", type: "x", data: paxRecords({ size: 3 }) }, file("a.json")],
      'the pax header at byte 0 has a "size" record; only one path record is accepted',
    ],
    [
      "pax path and mtime",
      [{ path: "pax", type: "x", data: paxRecords({ path: "b.json", mtime: 1 }) }, file("a.json")],
      'the pax header at byte 0 has a "mtime" record',
    ],
    [
      "pax header with nothing after it",
      [{ path: "pax", type: "x", data: paxRecords({ path: "b.json" }) }],
      "the archive is cut short",
    ],
    [
      "global pax header",
      [{ path: "g", type: "g", data: paxRecords({ path: "x" }) }],
      "g: a global pax header",
    ],
    [
      "GNU long name",
      [{ path: "././@LongLink", type: "L", data: text("a.json") }],
      "././@LongLink: a GNU long name",
    ],
    [
      "GNU long link name",
      [{ path: "././@LongLink", type: "K", data: text("a") }],
      "././@LongLink: a GNU long link name",
    ],
    ["GNU sparse file", [{ path: "a.json", type: "S" }], "a.json: a GNU sparse file"],
    ["FIFO", [{ path: "a.json", type: "6" }], "a.json: a FIFO"],
    [
      "control character",
      [file("a\u001b[2K.json")],
      '"a\\u001b[2K.json": a path with a control character',
    ],
  ];
  for (const [name, entries, reason] of cases)
    it(name, () => {
      let message = "";
      try {
        readTarGz(rawTarGz(entries), { source: "evil.tar.gz" });
      } catch (error) {
        expect(DistDebugError.isInstance(error) && error.code).toBe("INVALID_ARCHIVE");
        message = (error as Error).message;
      }
      expect(message).toContain(`evil.tar.gz: ${reason}`);
      expect(message).not.toContain("\n");
    });

  it("writeTarGz refuses a file where another entry needs a folder", () => {
    expect(() => writeTarGz([file("a"), file("a/b")])).toThrow(/a\/b: expects a to be a folder/);
  });
});

describe("readTarGz reads only what tar extracts the same way", () => {
  const source = { source: "x.tar.gz" };
  it("takes a pax path record as tar does", () => {
    const archive = rawTarGz([
      { path: "pax", type: "x", data: paxRecords({ path: "long/é.json" }) },
      { path: "short.json", data: text("{}") },
    ]);
    expect(readTarGz(archive, source).map((entry) => entry.path)).toEqual(["long/é.json"]);
  });

  it("refuses anything but zeros after the end-of-archive block", () => {
    const tar = rawTar([{ path: "a.json", data: text("{}") }]);
    const padded = Buffer.concat([tar, Buffer.alloc(10240 - tar.length)]);
    expect(readTarGz(gzipSync(padded), source)).toHaveLength(1);
    const trailing = Buffer.concat([tar, rawTar([{ path: "b.json", data: text("{}") }])]);
    expect(() => readTarGz(gzipSync(trailing), source)).toThrow(
      "x.tar.gz: data after the end-of-archive block",
    );
  });

  it("refuses a size field that is not plain octal, and a header of neither ustar nor GNU", () => {
    const tar = rawTar([{ path: "a.json", data: text("{}") }]);
    const base256 = Buffer.from(tar);
    base256[124] = 0x80;
    expect(() => readTarGz(gzipSync(base256), source)).toThrow(/bad checksum|not plain octal/);
    const v7 = Buffer.from(tar);
    v7.fill(0, 257, 265);
    expect(() => readTarGz(gzipSync(v7), source)).toThrow(/bad checksum|neither a ustar nor a GNU/);
  });

  it("checks each file's size limit on its header, streaming from a file", async () => {
    const dir = await testdir();
    const path = join(dir, "a.tar.gz");
    await writeFile(path, writeTarGz([{ path: "a/trajectory.json", data: new Uint8Array(5000) }]));
    const layout = {
      fileLimit: (file: string) => (file === "a/trajectory.json" ? 4096 : undefined),
      isFolder: () => false,
    };
    await expect(readTarGzFile(path, { layout })).rejects.toThrow(
      `${path}: a/trajectory.json: 5000 bytes, over the 4096-byte limit of this file`,
    );
    const other = { ...layout, fileLimit: () => undefined };
    await expect(readTarGzFile(path, { layout: other })).rejects.toThrow(
      "a/trajectory.json: not a file of the results layout",
    );
    expect(await readTarGzFile(path)).toHaveLength(1);
  });
});
