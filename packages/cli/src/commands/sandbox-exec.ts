import { stat } from "node:fs/promises";
import { extname, resolve } from "node:path";
import {
  createSandbox,
  type ExecResult,
  parseSandboxPolicy,
  type SandboxEvent,
} from "@distdebug/sandbox";
import { loadConfig, readFileChecked, type SandboxPolicy } from "@distdebug/schema";
import {
  type CommandArgs,
  defineCommand,
  optionalString,
  parseDuration,
  usageError,
} from "../command.js";
import type { CliIO } from "../io.js";

const modes = ["auto", "privileged", "user-namespace"] as const;

/** Reads `--policy`: a JSON policy, or a run config YAML whose `environment.sandbox` is used. */
async function readPolicy(file: string | undefined, cwd: string): Promise<SandboxPolicy> {
  if (file === undefined) return parseSandboxPolicy({});
  const path = resolve(cwd, file);
  if ([".yaml", ".yml"].includes(extname(path).toLowerCase()))
    return (await loadConfig({ files: [path] })).environment.sandbox;
  const text = (await readFileChecked(path)).toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw usageError(`--policy ${file}: not valid JSON (${(error as Error).message})`);
  }
  return parseSandboxPolicy(value, { source: file });
}

function pathOption(args: CommandArgs, name: string, cwd: string): string | undefined {
  const value = optionalString(args, name);
  return value === undefined ? undefined : resolve(cwd, value);
}

export default defineCommand({
  usage: "sandbox exec --workspace <dir> [--policy <file>] [--timeout 30s] -- <command>...",
  description:
    "Runs one command under a sandbox policy, for debugging a policy. One word after -- is a shell command line (/bin/sh -c); several are an argv. The workspace is bound at /workspace; as root, commands run as the policy's uid (65534) and the workspace is only writable for it with --chown. Exits 0 when the command exits 0, else 1.",
  options: {
    workspace: { type: "string", description: "folder bound read-write at /workspace (required)" },
    task: { type: "string", description: "folder bound read-only at /task" },
    output: { type: "string", description: "folder bound read-write at /output" },
    policy: { type: "string", description: "a JSON sandbox policy, or a run config YAML" },
    timeout: {
      type: "string",
      description: "wall-clock timeout, such as 30s (default: the policy's)",
    },
    mode: { type: "string", description: "auto | privileged | user-namespace (default auto)" },
    backend: {
      type: "string",
      description: "bubblewrap | no-sandbox (UNSAFE; default: the policy's)",
    },
    chown: {
      type: "boolean",
      description: "as root, hand the workspace and output to the sandbox user",
    },
  },
  async run(args, io) {
    const workspace = pathOption(args, "workspace", io.cwd);
    if (workspace === undefined) throw usageError("--workspace is required");
    if (args.positionals.length === 0) throw usageError("name the command after --");
    const mode = optionalString(args, "mode") ?? "auto";
    if (!(modes as readonly string[]).includes(mode))
      throw usageError(
        `--mode: expected one of ${modes.join(", ")}, found ${JSON.stringify(mode)}`,
      );
    let policy = await readPolicy(optionalString(args, "policy"), io.cwd);
    const backend = optionalString(args, "backend");
    if (backend !== undefined) {
      if (backend !== "bubblewrap" && backend !== "no-sandbox")
        throw usageError(
          `--backend: expected bubblewrap or no-sandbox, found ${JSON.stringify(backend)}`,
        );
      policy = { ...policy, backend };
    }
    const timeout = optionalString(args, "timeout");
    const timeoutMs = timeout === undefined ? undefined : parseDuration(timeout, "timeout");
    const task = pathOption(args, "task", io.cwd);
    const output = pathOption(args, "output", io.cwd);
    const json = Boolean(args.values.json);
    const onEvent = (event: SandboxEvent) => {
      if (event.type === "sandbox-warn")
        io.stderr(`distdebug sandbox exec: WARNING: ${event.message}\n`);
    };
    if (process.getuid?.() === 0 && !args.values.chown && policy.backend === "bubblewrap")
      await hintOwnership(io, workspace, policy.user.uid);
    const sandbox = await createSandbox({
      workspace,
      policy,
      mode: mode as (typeof modes)[number],
      prepareDirs: Boolean(args.values.chown),
      onEvent,
      ...(task === undefined ? {} : { task }),
      ...(output === undefined ? {} : { output }),
    });
    const [first, ...rest] = args.positionals;
    const command = rest.length === 0 && first !== undefined ? first : args.positionals;
    const result = await sandbox.exec(command, {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(io.signal ? { signal: io.signal } : {}),
    });
    await sandbox.dispose();
    if (json) {
      io.stdout(
        `${JSON.stringify({ ok: result.exitCode === 0, backend: sandbox.backend, mode: sandbox.mode, warning: sandbox.warning, policy, result }, null, 2)}\n`,
      );
    } else {
      io.stdout(result.stdout);
      io.stderr(result.stderr);
      report(io, sandbox.backend, sandbox.mode, result);
    }
    return result.exitCode === 0 ? 0 : 1;
  },
});

/** As root without --chown, says when the sandbox user cannot read the workspace. */
async function hintOwnership(io: CliIO, workspace: string, uid: number): Promise<void> {
  const info = await stat(workspace).catch(() => undefined);
  if (info && info.uid !== uid && (info.mode & 0o005) !== 0o005)
    io.stderr(
      `distdebug sandbox exec: note: ${workspace} is not readable for the sandbox user (uid ${uid}); pass --chown to hand it over\n`,
    );
}

function report(io: CliIO, backend: string, mode: string | undefined, result: ExecResult): void {
  const status =
    result.exitCode === null ? `killed by ${result.signal}` : `exit ${result.exitCode}`;
  const limit = result.limitHit ? `, limit hit: ${result.limitHit}` : "";
  const cut = result.truncated
    ? `, output truncated (${result.stdoutBytes} stdout / ${result.stderrBytes} stderr bytes)`
    : "";
  io.stderr(
    `[sandbox ${backend}${mode ? `/${mode}` : ""}: ${status}, ${Math.round(result.durationMs)} ms${limit}${cut}]\n`,
  );
}
