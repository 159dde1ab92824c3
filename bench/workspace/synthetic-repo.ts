import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";

/** Shape of a synthetic repository for the workspace bench. */
export interface SyntheticRepoShape {
  files: number;
  /** Average file size in bytes. */
  averageBytes: number;
  /** Commits after the initial import (each changes a few files). */
  commits: number;
}

// A small deterministic PRNG so every run builds the same repository.
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words =
  "request session leader follower quorum snapshot txn zxid epoch watcher node path data acl sync commit proposal ack election vote server client connection buffer channel socket timeout retry state log digest".split(
    " ",
  );

function codeFile(random: () => number, bytes: number, name: string): string {
  const lines = [`package org.example.${name.replace(/[^a-z]/gi, "")};`, ""];
  let size = 0;
  while (size < bytes) {
    const indent = "    ".repeat(1 + Math.floor(random() * 3));
    const count = 3 + Math.floor(random() * 8);
    const parts: string[] = [];
    for (let i = 0; i < count; i++) parts.push(words[Math.floor(random() * words.length)] ?? "x");
    const line = `${indent}${parts[0]}.${parts.slice(1).join("_")}(${Math.floor(random() * 100000)});`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Builds a repository with `git fast-import`: an initial commit of `files` files, then
 * `commits` commits each changing a few files; the last commit mentions `ISSUE-4242`
 * and is tagged. Returns the buggy commit (the parent of the last) and the fix.
 */
export async function buildSyntheticRepo(
  dir: string,
  shape: SyntheticRepoShape,
): Promise<{ buggy: string; fix: string }> {
  await mkdir(dir, { recursive: true });
  await run("git", ["init", "-q", "--bare", "-b", "main", dir]);
  const random = prng(42);
  const child = spawn("git", ["--git-dir", dir, "fast-import", "--quiet"], {
    stdio: ["pipe", "inherit", "inherit"],
  });
  const done = new Promise<void>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`fast-import exited ${code}`)),
    );
  });
  const write = (text: string) =>
    new Promise<void>((resolve) => {
      if (child.stdin.write(text)) resolve();
      else child.stdin.once("drain", () => resolve());
    });
  const paths: string[] = [];
  for (let i = 0; i < shape.files; i++) paths.push(`src/module${i % 40}/pkg${i % 7}/File${i}.java`);
  let mark = 0;
  let time = 1_600_000_000;
  const commit = async (message: string, changes: string[]) => {
    mark++;
    time += 3600;
    const body: string[] = [
      `commit refs/heads/main\nmark :${mark}\ncommitter Dev <dev@example.com> ${time} +0000\ndata ${Buffer.byteLength(message)}\n${message}\n`,
    ];
    await write(body.join(""));
    for (const path of changes) {
      const content = codeFile(random, shape.averageBytes * (0.5 + random()), path);
      await write(`M 100644 inline ${path}\ndata ${Buffer.byteLength(content)}\n${content}\n`);
    }
    await write("\n");
  };
  await commit("initial import", paths);
  for (let c = 1; c <= shape.commits; c++) {
    const changes: string[] = [];
    for (let k = 0; k < 3; k++) changes.push(paths[Math.floor(random() * paths.length)] ?? "x");
    await commit(
      c === shape.commits ? "ISSUE-4242: fix the race in session expiry" : `change ${c}`,
      [...new Set(changes)],
    );
  }
  child.stdin.end();
  await done;
  // fast-import deltas each blob against the one written before it (50-deep chains across
  // unrelated files); repack as gc would, so the pack looks like a real clone's.
  await run("git", [
    "--git-dir",
    dir,
    "repack",
    "-a",
    "-d",
    "-f",
    "-q",
    "--window=10",
    "--depth=50",
  ]);
  await run("git", ["--git-dir", dir, "tag", "release-1", "main"]);
  const fix = (await run("git", ["--git-dir", dir, "rev-parse", "main"])).trim();
  const buggy = (await run("git", ["--git-dir", dir, "rev-parse", "main~1"])).trim();
  return { buggy, fix };
}

/** Runs a command and returns its stdout. */
export function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(" ")} exited ${code}`)),
    );
  });
}
