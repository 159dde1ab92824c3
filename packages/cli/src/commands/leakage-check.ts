import { resolve } from "node:path";
import { checkLeakage, type GitEngine } from "@distdebug/workspace";
import { defineCommand, optionalString, stringList, usageError } from "../command.js";

export default defineCommand({
  usage: "leakage-check <dir> [--needle X]... [--repo <path> --fix-commit <sha>]",
  description:
    "Scans a workspace (files and the .git folder: objects, refs, reflogs, config) for each --needle, the fix commit id (full or any 7+ digit prefix) and the lines the fix adds, and checks that history is exactly one neutral commit. Exits 1 and lists the findings on any leak.",
  options: {
    needle: {
      type: "string",
      multiple: true,
      description: "a string that must not appear (repeatable)",
    },
    repo: { type: "string", description: "the source repository holding the fix" },
    "fix-commit": { type: "string", description: "the fix commit (needs --repo)" },
    "buggy-commit": {
      type: "string",
      description: "the buggy revision (default: the fix's parent)",
    },
    engine: { type: "string", description: "auto | git | isomorphic-git (default auto)" },
  },
  async run(args, io) {
    const [dirArg, ...extra] = args.positionals;
    if (!dirArg) throw usageError("name the workspace folder to check");
    if (extra.length > 0)
      throw usageError(`one workspace folder at a time, found ${args.positionals.length}`);
    const repo = optionalString(args, "repo");
    const fixCommit = optionalString(args, "fix-commit");
    if ((repo === undefined) !== (fixCommit === undefined))
      throw usageError("--repo and --fix-commit go together");
    const buggyCommit = optionalString(args, "buggy-commit");
    const engine = optionalString(args, "engine") ?? "auto";
    if (!["auto", "git", "isomorphic-git"].includes(engine))
      throw usageError(
        `--engine: expected auto, git or isomorphic-git, found ${JSON.stringify(engine)}`,
      );
    const report = await checkLeakage({
      dir: resolve(io.cwd, dirArg),
      needles: stringList(args, "needle"),
      engine: engine as GitEngine,
      ...(repo && fixCommit
        ? {
            fix: {
              repo: resolve(io.cwd, repo),
              commit: fixCommit,
              ...(buggyCommit ? { buggyCommit } : {}),
            },
          }
        : {}),
    });
    if (args.values.json)
      io.stdout(`${JSON.stringify({ ok: report.clean, ...report }, null, 2)}\n`);
    else {
      for (const finding of report.findings)
        io.stdout(
          `leak  ${finding.kind.padEnd(13)} ${finding.file}${finding.line ? `:${finding.line}` : ""}  ${finding.detail}\n`,
        );
      io.stdout(
        report.clean
          ? `clean: ${report.scanned.files} files and ${report.scanned.objects} git objects scanned\n`
          : `${report.findings.length} leak${report.findings.length === 1 ? "" : "s"} found\n`,
      );
    }
    return report.clean ? 0 : 1;
  },
});
