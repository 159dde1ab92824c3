import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkspaceEvent } from "./events.js";
import { git, type SourceFixture, sourceFixture } from "./internal/fixture-repo.js";
import { prepareWorkspace } from "./prepare-workspace.js";

// A loopback smart-HTTP git server: node's http in front of the real `git http-backend` CGI.
let source: SourceFixture;
let server: Server;
let url: string;
let served: string;

beforeAll(async () => {
  source = await sourceFixture();
  const root = await testdir();
  served = join(root, "repo.git");
  git(root, "clone", "-q", "--bare", source.dir, served);
  server = createServer((req, res) => {
    const target = new URL(req.url ?? "/", "http://127.0.0.1");
    const cgi = spawn("git", ["http-backend"], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: target.pathname,
        QUERY_STRING: target.search.slice(1),
        REQUEST_METHOD: req.method ?? "GET",
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        HTTP_CONTENT_ENCODING: req.headers["content-encoding"] ?? "",
        GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
        REMOTE_ADDR: "127.0.0.1",
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let started = false;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (started) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      started = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === "status") status = Number(value.split(" ")[0]);
        else res.setHeader(name, value);
      }
      res.statusCode = status;
      res.write(head.subarray(end + 4));
    });
    cgi.on("close", () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/repo.git`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("prepareWorkspace from an http URL", () => {
  it("clones once into the repository cache, fetches a missing commit, and prepares", async () => {
    const base = await testdir();
    const cacheDir = join(base, "cache");
    const events: WorkspaceEvent[] = [];
    const onEvent = (event: WorkspaceEvent) => events.push(event);
    const first = await prepareWorkspace({
      source: url,
      commit: source.buggy,
      dir: join(base, "a"),
      cacheDir,
      onEvent,
      needles: [source.issueKey],
    });
    expect(first.sourceCommit).toBe(source.buggy);
    expect(events.filter((e) => e.type === "repo-clone-end")).toHaveLength(1);
    expect(git(join(base, "a"), "log", "--all", "--oneline").split("\n")).toHaveLength(1);
    expect(git(join(base, "a"), "status", "--porcelain")).toBe("");

    // A commit pushed after the clone: fetched, not cloned again.
    const work = await testdir();
    git(work, "clone", "-q", served, "w");
    git(join(work, "w"), "commit", "-q", "--allow-empty", "-m", "newer");
    git(join(work, "w"), "push", "-q", "origin", "HEAD:main");
    const newer = git(join(work, "w"), "rev-parse", "HEAD");
    events.length = 0;
    const second = await prepareWorkspace({
      source: url,
      commit: newer,
      dir: join(base, "b"),
      cacheDir,
      onEvent,
    });
    expect(second.sourceCommit).toBe(newer);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["repo-fetch-start", "repo-fetch-end"]),
    );
    expect(events.some((e) => e.type === "repo-clone-start")).toBe(false);
  });
});
