import { writeFile } from "node:fs/promises";
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

  it("clones with isomorphic-git when asked, to the same workspace", async () => {
    const base = await testdir();
    const viaGit = await prepareWorkspace({
      source: url,
      commit: source.buggy,
      dir: join(base, "git"),
      cacheDir: join(base, "cache-git"),
    });
    const events: WorkspaceEvent[] = [];
    const viaIso = await prepareWorkspace({
      source: url,
      commit: source.buggy,
      dir: join(base, "iso"),
      cacheDir: join(base, "cache-iso"),
      engine: "isomorphic-git",
      onEvent: (event) => events.push(event),
    });
    expect(events.filter((e) => e.type === "repo-clone-end")).toHaveLength(1);
    expect(viaIso.commit).toBe(viaGit.commit);
  });

  it("applies git's own configuration: url.insteadOf points a github.com URL at a mirror", async () => {
    const base = await testdir();
    const config = join(base, "gitconfig");
    await writeFile(
      config,
      `[url "${server.url("")}"]\n\tinsteadOf = https://github.com/example-org/\n`,
    );
    const previous = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = config;
    try {
      const events: WorkspaceEvent[] = [];
      const prepared = await prepareWorkspace({
        source: "https://github.com/example-org/repo.git",
        commit: source.buggy,
        dir: join(base, "ws"),
        cacheDir: join(base, "cache"),
        onEvent: (event) => events.push(event),
      });
      expect(prepared.sourceCommit).toBe(source.buggy);
      expect(events).toContainEqual({
        type: "repo-clone-end",
        url: "https://github.com/example-org/repo.git",
      });
    } finally {
      if (previous === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = previous;
    }
  });
});
