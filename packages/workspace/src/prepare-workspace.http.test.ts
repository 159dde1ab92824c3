import { join } from "node:path";
import { type GitHttpServer, gitHttpServer, testdir } from "@distdebug/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkspaceEvent } from "./events.js";
import { prepareWorkspace } from "./prepare-workspace.js";
import { git, type SourceFixture, sourceFixture } from "./testing/fixture-repo.js";

// A loopback smart-HTTP git server in front of the real `git http-backend`.
let source: SourceFixture;
let server: GitHttpServer;
let url: string;
let served: string;

beforeAll(async () => {
  source = await sourceFixture();
  const root = await testdir();
  served = join(root, "repo.git");
  git(root, "clone", "-q", "--bare", source.dir, served);
  server = await gitHttpServer(root);
  url = server.url("repo.git");
});

afterAll(() => server.close());

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
