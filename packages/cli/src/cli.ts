import { parseArgs } from "node:util";
import { DistDebugError, didYouMean, errorHeadline } from "@distdebug/schema";
import type { Command } from "./command.js";
import { errorMessage } from "./error-text.js";
import { type CliIO, processIO } from "./io.js";
import { commandTable, findCommand } from "./registry.js";
import { terminalIO } from "./render/terminal-text.js";

/** The version of the CLI (the package version). */
export const CLI_VERSION = "0.1.0";

function topHelp(): string {
  const width = Math.max(...commandTable.map((entry) => entry.words.join(" ").length));
  const lines = commandTable.map(
    (entry) => `  ${entry.words.join(" ").padEnd(width)}  ${entry.summary}`,
  );
  return [
    "distdebug: can an LLM agent find the code that caused a distributed-system failure?",
    "",
    "Usage: distdebug <command> [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Run distdebug <command> --help for a command's options.",
    "",
  ].join("\n");
}

function commandHelp(command: Command): string {
  const options = Object.entries(command.options).map(([name, option]) => {
    const flag = `--${name}${option.short ? `, -${option.short}` : ""}${option.type === "string" ? " <value>" : ""}`;
    const description = option.description ?? "";
    return `  ${flag.padEnd(28)} ${description}`;
  });
  return [
    `Usage: distdebug ${command.usage}`,
    "",
    command.description,
    "",
    "Options:",
    ...options,
    `  ${"--json".padEnd(28)} machine-readable output on stdout`,
    `  ${"--help, -h".padEnd(28)} show this help`,
    "",
  ].join("\n");
}

/**
 * A command group's help (`distdebug dataset --help`: exit 0, its commands on stdout), or exit
 * 2 for an unknown command: a group's subcommands, or the closest command.
 */
function unknownCommand(argv: readonly string[], io: CliIO): number {
  const first = argv[0] ?? "";
  const group = commandTable.filter((entry) => entry.words.length > 1 && entry.words[0] === first);
  if (group.length > 0) {
    const second = argv[1];
    const names = group.map((entry) => entry.words[1] ?? "");
    const list = group
      .map((entry) => `  ${entry.words.join(" ").padEnd(20)} ${entry.summary}`)
      .join("\n");
    if (second === "--help" || second === "-h" || second === "help") {
      io.stdout(
        `Usage: distdebug ${first} <command> [options]\n\nCommands:\n${list}\n\nRun distdebug ${first} <command> --help for a command's options.\n`,
      );
      return 0;
    }
    const head =
      second === undefined || second.startsWith("-")
        ? `distdebug ${first}: choose a subcommand`
        : `distdebug ${first}: unknown subcommand ${JSON.stringify(second)}${didYouMean(second, names)}`;
    io.stderr(`${head}\n${list}\n`);
    return 2;
  }
  const words = new Set(commandTable.map((entry) => entry.words[0] ?? ""));
  io.stderr(
    `distdebug: unknown command ${JSON.stringify(first)}${didYouMean(first, words)}; run distdebug --help for the list\n`,
  );
  return 2;
}

/** node:util parseArgs errors in the CLI's words, with "did you mean" for unknown options. */
function parseErrorMessage(error: unknown, options: readonly string[]): string {
  const code = (error as NodeJS.ErrnoException).code;
  const text = error instanceof Error ? error.message : String(error);
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const option = /'(-{1,2}[^']+)'/.exec(text)?.[1] ?? "";
    const name = option.replace(/^-+/, "").split("=")[0] ?? "";
    const known = [...options, "json", "help"];
    return `unknown option ${option}${didYouMean(name, known).replace(/mean (\S+)\?/, "mean --$1?")}`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const option = /'(-{1,2}[^' ]+)/.exec(text)?.[1];
    return option ? `${option} needs a value` : errorHeadline(text);
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL")
    return `unexpected argument ${/'([^']+)'/.exec(text)?.[1] ?? ""}`.trimEnd();
  return errorHeadline(text);
}

/**
 * Runs `distdebug` with the given arguments and returns its exit code.
 *
 * @example
 * ```ts
 * const code = await runCli(["validate", "examples/diagnosis.json"]);
 * ```
 */
export async function runCli(
  argv: readonly string[],
  terminal: CliIO = processIO(),
): Promise<number> {
  // Every write of every command goes through here (see terminalIO).
  const io = terminalIO(terminal);
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    io.stdout(topHelp());
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === "--version" || argv[0] === "-v") {
    io.stdout(`${CLI_VERSION}\n`);
    return 0;
  }
  const entry = findCommand(argv);
  if (!entry) return unknownCommand(argv, io);
  const { default: command } = await entry.load();
  const rest = argv.slice(entry.words.length);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...rest],
      options: {
        ...Object.fromEntries(
          Object.entries(command.options).map(
            ([name, { description: _description, ...option }]) => [name, option],
          ),
        ),
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const message = parseErrorMessage(error, Object.keys(command.options));
    if (rest.includes("--json"))
      io.stdout(`${JSON.stringify({ ok: false, error: { code: "USAGE", message } })}\n`);
    io.stderr(
      `distdebug ${entry.words.join(" ")}: ${message}\nUsage: distdebug ${command.usage}\n`,
    );
    return 2;
  }
  if (parsed.values.help) {
    io.stdout(commandHelp(command));
    return 0;
  }
  try {
    return await command.run({ values: parsed.values, positionals: parsed.positionals }, io);
  } catch (error) {
    if (DistDebugError.hasCode(error, "USAGE")) {
      io.stderr(
        `distdebug ${entry.words.join(" ")}: ${error.message}\nUsage: distdebug ${command.usage}\n`,
      );
      return 2;
    }
    const message = errorMessage(error);
    if (parsed.values.json)
      io.stdout(
        `${JSON.stringify({ ok: false, error: DistDebugError.isInstance(error) ? error.toJSON() : { message } })}\n`,
      );
    io.stderr(`distdebug ${entry.words.join(" ")}: ${message}\n`);
    if (io.env.DISTDEBUG_DEBUG && error instanceof Error && error.stack)
      io.stderr(`${error.stack}\n`);
    const code = DistDebugError.isInstance(error) ? error.code : "";
    return code === "MISSING_ENV" || code === "INVALID_ARGUMENT" || code === "INVALID_CONFIG"
      ? 2
      : 1;
  }
}
