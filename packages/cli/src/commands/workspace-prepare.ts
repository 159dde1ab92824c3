import { resolve } from "node:path";
import {
  checkLeakage,
  type GitEngine,
  type LeakageReport,
  prepareWorkspace,
} from "@distdebug/workspace";
import {
  defineCommand,
  optionalString,
  requireString,
  stringList,
  usageError,
} from "../command.js";
import { CACHE_DIR_OPTION, cacheDirOf } from "../render/cache-dir.js";
import { TERMINAL } from "../render/terminal-text.js";

const engines = new Set(["auto", "git", "isomorphic-git"]);

function isUrl(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
}

export default defineCommand({
  usage:
    "workspace prepare --repo <url|path> --commit <sha> --out <dir> [--needle X]... [--fix-commit <sha>]",
  description:
    "Writes the tree of --commit into --out as a fresh git repository with one neutral commit and nothing else (no history, tags, remotes or reflogs), scrubbing each --needle (and the --fix-commit id) without moving a line. With --fix-commit the result is then leakage-checked; exits 1 on a leak.",
  options: {
    repo: { type: "string", description: "http(s) URL or local repository path (bare or not)" },
    commit: { type: "string", description: "the buggy revision" },
    out: { type: "string", description: "the workspace folder to create" },
    needle: { type: "string", multiple: true, description: "a string to scrub (repeatable)" },
    "fix-commit": { type: "string", description: "the fix: scrubbed, then checked for leaks" },
    ...CACHE_DIR_OPTION,
    "no-cache": { type: "boolean", description: "build straight into --out, no base cache" },
    engine: { type: "string", description: "auto | git | isomorphic-git (default auto)" },
    replace: { type: "boolean", description: "replace an existing --out" },
  },
  async run(args, io) {
    const repoArg = requireString(args, "repo");
    const commit = requireString(args, "commit");
    const out = resolve(io.cwd, requireString(args, "out"));
    const engine = optionalString(args, "engine") ?? "auto";
    if (!engines.has(engine))
      throw usageError(
        `--engine: expected auto, git or isomorphic-git, found ${JSON.stringify(engine)}`,
      );
    const repo = isUrl(repoArg) ? repoArg : resolve(io.cwd, repoArg);
    const fixCommit = optionalString(args, "fix-commit");
    const needles = [...stringList(args, "needle"), ...(fixCommit ? [fixCommit] : [])];
    const cacheDir = args.values["no-cache"]
      ? false
      : cacheDirOf(optionalString(args, "cache-dir"), io);
    const result = await prepareWorkspace({
      source: repo,
      commit,
      dir: out,
      needles,
      engine: engine as GitEngine,
      replace: args.values.replace === true,
      cacheDir,
      ...(io.signal ? { signal: io.signal } : {}),
      onEvent: (event) => {
        if (!io.isTTY || args.values.json) return;
        if (event.type === "tree-copy") {
          io.stderr(TERMINAL.lineStart);
          io.stderr(`  writing files ${event.filesDone}/${event.filesTotal}`);
        } else if (event.type === "repo-clone-start") io.stderr(`cloning ${event.url} ...\n`);
      },
    });
    if (io.isTTY && !args.values.json) io.stderr(TERMINAL.clearToEnd);
    let leakage: LeakageReport | undefined;
    if (fixCommit && !isUrl(repo))
      leakage = await checkLeakage({ dir: result.dir, needles, fix: { repo, commit: fixCommit } });
    if (args.values.json) {
      io.stdout(
        `${JSON.stringify({ ok: leakage?.clean ?? true, ...result, ...(leakage ? { leakage } : {}) }, null, 2)}\n`,
      );
    } else {
      const megabytes = (result.bytes / (1024 * 1024)).toFixed(1);
      io.stdout(
        `prepared ${result.dir}: ${result.files} files (${megabytes} MB) at ${result.sourceCommit.slice(0, 12)}, one commit ${result.commit.slice(0, 12)}; ${result.cacheHit ? "base workspace from cache" : "built"} in ${result.timings.totalMs.toFixed(0)} ms\n`,
      );
      for (const item of result.replacements)
        io.stdout(`  scrubbed ${JSON.stringify(item.needle)} at ${item.file}:${item.line}\n`);
      for (const path of result.submodules) io.stdout(`  submodule left empty: ${path}\n`);
      if (leakage) {
        if (leakage.clean) io.stdout("leakage check: clean\n");
        for (const finding of leakage.findings)
          io.stdout(
            `  leak ${finding.kind} ${finding.file}${finding.line ? `:${finding.line}` : ""}: ${finding.detail}\n`,
          );
      }
    }
    return leakage && !leakage.clean ? 1 : 0;
  },
});
