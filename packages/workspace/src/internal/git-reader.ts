import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { DistDebugError } from "@distdebug/schema";
import type { ObjectType } from "../git-objects.js";
import { gitEnv, runGit } from "./git-binary.js";
import type { ObjectReader, RawObject } from "./object-reader.js";

interface Pending {
  oid: string;
  resolve: (object: RawObject) => void;
  reject: (error: Error) => void;
}

/**
 * Reads objects through one long-lived `git cat-file --batch` process, pipelining requests:
 * ids are written as fast as they come and responses parsed in order from the stream. The
 * process keeps node's event loop alive only while a read is in flight: an idle reader that
 * was not closed never holds a process open.
 */
export class GitBinaryReader implements ObjectReader {
  readonly engine = "git" as const;
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly queue: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private chunks: Buffer[] = [];
  private length = 0;
  private needed = 0;
  private failure: Error | undefined;

  constructor(private readonly gitdir: string) {}

  get broken(): boolean {
    return this.failure !== undefined;
  }

  async resolve(revision: string): Promise<string> {
    const out = await runGit([
      "--git-dir",
      this.gitdir,
      "rev-parse",
      "--verify",
      "--end-of-options",
      `${revision}^{commit}`,
    ]);
    return out.toString("latin1").trim();
  }

  private start(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawn("git", ["--git-dir", this.gitdir, "cat-file", "--batch"], {
      env: gitEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const stderr: Buffer[] = [];
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.stdout.on("data", (chunk: Buffer) => this.onData(chunk));
    child.stdin.on("error", () => {});
    const fail = (error: Error) => {
      this.failure = error;
      for (const pending of this.queue.splice(0)) pending.reject(error);
    };
    child.on("error", fail);
    child.on("close", (code) => {
      if (this.queue.length > 0)
        fail(
          new DistDebugError({
            code: "WORKSPACE_ERROR",
            message: `git cat-file --batch on ${this.gitdir} exited ${code} with objects still to read: ${Buffer.concat(stderr).toString("utf8").trim()}; check that the repository is intact (git fsck)`,
            data: { gitdir: this.gitdir, exitCode: code },
          }),
        );
      this.child = undefined;
    });
    this.child = child;
    return child;
  }

  /** Holds the event loop while reads are in flight, lets go of it when none is. */
  private hold(child: ChildProcessWithoutNullStreams, held: boolean): void {
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as {
      ref?: () => void;
      unref?: () => void;
    }[])
      if (held) handle.ref?.();
      else handle.unref?.();
  }

  private onData(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
    if (this.length < this.needed) return;
    this.buffer =
      this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    this.chunks = [];
    this.length = 0;
    this.needed = 0;
    for (;;) {
      const pending = this.queue[0];
      if (!pending) break;
      const newline = this.buffer.indexOf(10);
      if (newline < 0) break;
      const header = this.buffer.toString("latin1", 0, newline);
      const parts = header.split(" ");
      if (parts[1] === "missing" || parts.length !== 3) {
        this.queue.shift();
        this.buffer = this.buffer.subarray(newline + 1);
        pending.reject(
          new DistDebugError({
            code: "WORKSPACE_ERROR",
            message: `object ${pending.oid} is missing from the repository ${this.gitdir}; fetch the commit that holds it, or clone the repository again`,
            data: { gitdir: this.gitdir, oid: pending.oid },
          }),
        );
        continue;
      }
      const size = Number(parts[2]);
      const end = newline + 1 + size;
      if (this.buffer.length < end + 1) {
        this.needed = end + 1;
        break;
      }
      this.queue.shift();
      const content = Buffer.from(this.buffer.subarray(newline + 1, end));
      this.buffer = this.buffer.subarray(end + 1);
      pending.resolve({ oid: parts[0] ?? pending.oid, type: parts[1] as ObjectType, content });
    }
    if (this.buffer.length > 0) {
      this.chunks.push(this.buffer);
      this.length = this.buffer.length;
    }
    this.buffer = Buffer.alloc(0);
    if (this.queue.length === 0 && this.child) this.hold(this.child, false);
  }

  readMany(oids: readonly string[]): Promise<RawObject[]> {
    if (this.failure) return Promise.reject(this.failure);
    if (oids.length === 0) return Promise.resolve([]);
    const child = this.start();
    const promises = oids.map(
      (oid) =>
        new Promise<RawObject>((resolve, reject) => {
          this.queue.push({ oid, resolve, reject });
        }),
    );
    this.hold(child, true);
    child.stdin.write(`${oids.join("\n")}\n`);
    return Promise.all(promises);
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    // Held while it closes: awaiting an unreferenced child would let the process end first.
    this.hold(child, true);
    await new Promise<void>((resolve) => {
      child.once("close", () => resolve());
      child.stdin.end();
    });
  }
}
