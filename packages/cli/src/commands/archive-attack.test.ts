import { execFileSync, spawnSync } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip, gzipSync } from "node:zlib";
import { serialize, sha256Hex } from "@distdebug/schema";
import { readTarGz, type TarEntry } from "@distdebug/submission";
import { type BaselineResults, baselineResults } from "@distdebug/test-fixtures";
import { paxRecords, type RawTarEntry, rawTar, testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { cliNodeArgs } from "../testing/spawn-cli.js";

const DIAGNOSIS = "zklite-142/attempt-1/diagnosis.json";
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

let fixture: BaselineResults;
let honest: TarEntry[];

/** One incident of the example dataset, two baseline attempts, scored and packaged. */
beforeAll(async () => {
  fixture = await baselineResults("archive-attack", await testdir());
  const archive = join(await testdir(), "submission.tar.gz");
  expect(await runCli(["package", fixture.resultsDir, "--out", archive], captureIO())).toBe(0);
  honest = readTarGz(await readFile(archive));
}, 240_000);

async function verify(tarStream: Buffer): Promise<{ code: number; out: string }> {
  const file = join(await testdir(), "attack.tar.gz");
  await writeFile(file, gzipSync(tarStream));
  const io = captureIO();
  const args = ["verify", file, "--dataset", fixture.datasetDir, "--cache-dir", fixture.cacheDir];
  const code = await runCli(args, io);
  return { code, out: io.out() + io.err() };
}

/** What GNU tar extracts from a tar stream: every file by relative path. */
async function tarExtract(tarStream: Buffer, flags: string[] = []): Promise<Map<string, string>> {
  const dir = await testdir();
  await writeFile(join(dir, "a.tar"), tarStream);
  await mkdir(join(dir, "out"));
  execFileSync("tar", ["-x", ...flags, "-f", join(dir, "a.tar"), "-C", join(dir, "out")]);
  const files = new Map<string, string>();
  for (const name of await readdir(join(dir, "out"), { recursive: true })) {
    const text = await readFile(join(dir, "out", name), "utf8").catch(() => undefined);
    if (text !== undefined) files.set(name, text);
  }
  return files;
}

const entriesOf = (entries: readonly TarEntry[]): RawTarEntry[] =>
  entries.map((entry) => ({ path: entry.path, data: entry.data }));

const FORGED = serialize({
  format: "distdebug.diagnosis/1",
  incidentId: "zklite-142",
  blocks: [{ path: "forged.go", startLine: 1, endLine: 2 }],
});

describe("verify reads an archive the way tar extracts it", () => {
  it("accepts the honest archive, and tar extracts exactly what it read", async () => {
    const stream = rawTar(entriesOf(honest));
    expect(await verify(stream)).toMatchObject({ code: 0 });
    const extracted = await tarExtract(stream);
    expect([...extracted.keys()].sort()).toEqual(honest.map((entry) => entry.path).sort());
  });

  it("refuses a pax size record: tar would extract another diagnosis.json and an extra file", async () => {
    const index = honest.findIndex((entry) => entry.path === DIAGNOSIS);
    const diagnosis = honest[index]!;
    // tar reads `size` bytes: the honest data, then the next header, then the hidden stream
    // (a forged diagnosis over the honest one, and a file the manifest does not know).
    const hidden = rawTar(
      [
        { path: DIAGNOSIS, data: Buffer.from(FORGED) },
        { path: "zklite-142/attempt-1/extra.sh", data: Buffer.from("echo extracted\n") },
      ],
      { end: false },
    );
    const padded = Math.ceil(diagnosis.data.length / 512) * 512;
    const stream = rawTar([
      ...entriesOf(honest.slice(0, index)),
      { path: "pax", type: "x", data: paxRecords({ size: padded + 512 }) },
      { path: DIAGNOSIS, data: diagnosis.data },
      { path: "pax", type: "x", data: hidden },
      ...entriesOf(honest.slice(index + 1)),
    ]);
    const extracted = await tarExtract(stream);
    expect(extracted.get(DIAGNOSIS)).toBe(FORGED);
    expect(extracted.get("zklite-142/attempt-1/extra.sh")).toBe("echo extracted\n");

    const result = await verify(stream);
    expect(result.code).toBe(1);
    expect(result.out).toContain(
      `has a "size" record; only one path record is accepted (tar would apply it, this reader does not)`,
    );
  });

  it("refuses data after the end-of-archive blocks (tar -i would extract it)", async () => {
    const trailing = rawTar([{ path: DIAGNOSIS, data: Buffer.from(FORGED) }]);
    const stream = Buffer.concat([rawTar(entriesOf(honest)), trailing]);
    expect((await tarExtract(stream, ["-i"])).get(DIAGNOSIS)).toBe(FORGED);
    const result = await verify(stream);
    expect(result.code).toBe(1);
    expect(result.out).toContain("data after the end-of-archive block");
  });

  it("refuses a file outside the results layout, even listed in the manifest", async () => {
    const extra = { path: "zklite-142/attempt-1/run.sh", data: Buffer.from("echo hi\n") };
    const manifestEntry = honest.find((entry) => entry.path === "manifest.json")!;
    const manifest = JSON.parse(Buffer.from(manifestEntry.data).toString("utf8"));
    manifest.files.push({ path: extra.path, sha256: sha256Hex(extra.data), bytes: 8 });
    const stream = rawTar([
      { path: "manifest.json", data: Buffer.from(serialize(manifest)) },
      ...entriesOf(honest.filter((entry) => entry !== manifestEntry)),
      extra,
    ]);
    const result = await verify(stream);
    expect(result.code).toBe(1);
    expect(result.out).toContain("zklite-142/attempt-1/run.sh: not a file of the results layout");
  });
});

describe("verify is bounded in memory", () => {
  it("refuses a 200 MB trajectory packed in a small archive before inflating it", {
    timeout: 120_000,
  }, async () => {
    const dir = await testdir();
    const file = join(dir, "bomb.tar.gz");
    const bytes = 200 * 1024 * 1024;
    const head = rawTar(
      entriesOf(honest.filter((entry) => !entry.path.endsWith("trajectory.json"))),
      {
        end: false,
      },
    );
    const header = rawTar(
      [{ path: "zklite-142/attempt-1/trajectory.json", data: new Uint8Array() }],
      {
        end: false,
      },
    );
    // The header's size field, rewritten to 200 MB (octal) with its checksum.
    header.write(`${bytes.toString(8).padStart(11, "0")}\0`, 124, "latin1");
    header.fill(0x20, 148, 156);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
    async function* body() {
      yield head;
      yield header;
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      for (let sent = 0; sent < bytes; sent += chunk.length) yield chunk;
      yield Buffer.alloc(1024);
    }
    await pipeline(body, createGzip({ level: 1 }), createWriteStream(file));
    // The CLI in its own process, reporting its peak memory (maxRSS, KiB) as it exits.
    const rssFile = join(dir, "rss");
    const report = `data:text/javascript,import{writeFileSync}from"node:fs";process.on("exit",()=>writeFileSync(${JSON.stringify(rssFile)},String(process.resourceUsage().maxRSS)))`;
    const child = spawnSync(
      process.execPath,
      [
        "--import",
        report,
        ...cliNodeArgs(),
        "verify",
        file,
        "--dataset",
        fixture.datasetDir,
        "--cache-dir",
        fixture.cacheDir,
      ],
      { encoding: "utf8", env: { ...process.env, CI: "true" } },
    );
    expect(child.status).toBe(1);
    expect(child.stdout + child.stderr).toContain(
      "zklite-142/attempt-1/trajectory.json: 209715200 bytes, over the 33554432-byte limit of this file",
    );
    const peakMiB = Number(await readFile(rssFile, "utf8")) / 1024;
    // A memory bound, not a time: the CLI with tsx loaded takes about 150 MiB; inflating the
    // file would take 200 MiB more at least (about 1.2 GiB before this was bounded).
    expect(peakMiB).toBeLessThan(300);
  });
});

describe("archive names cannot draw on the operator's terminal", () => {
  it("verify shows a name with escape sequences inert, in one line", async () => {
    const name =
      "zklite-142/attempt-1/x\r\u001b[2K\u001b[1A\u001b[2K\u001b[32mok        fake\u001b[0m";
    const stream = rawTar([...entriesOf(honest), { path: name, data: Buffer.from("x") }]);
    const result = await verify(stream);
    expect(result.code).toBe(1);
    expect(result.out).not.toMatch(RAW_CONTROL);
    expect(result.out).toContain(
      String.raw`"zklite-142/attempt-1/x\r\u001b[2K\u001b[1A\u001b[2K\u001b[32mok        fake\u001b[0m": a path with a control character`,
    );
  });

  it("verify shows a manifest name with escape sequences inert (it verifies, and cannot recolor)", async () => {
    const manifestEntry = honest.find((entry) => entry.path === "manifest.json")!;
    const manifest = JSON.parse(Buffer.from(manifestEntry.data).toString("utf8"));
    manifest.name = "baseline\r\u001b[2K\u001b[1A\u001b[2K\u001b[32mok";
    const stream = rawTar([
      { path: "manifest.json", data: Buffer.from(serialize(manifest)) },
      ...entriesOf(honest.filter((entry) => entry !== manifestEntry)),
    ]);
    const result = await verify(stream);
    expect(result.code).toBe(0);
    expect(result.out).not.toMatch(RAW_CONTROL);
    expect(result.out).toContain(
      String.raw`ok        baseline\u000d\u001b[2K\u001b[1A\u001b[2K\u001b[32mok: 1 incidents`,
    );
  });
});
