import type { ParseArgsConfig } from "node:util";
import { DistDebugError } from "@distdebug/schema";

/** One option of a command: a `node:util` parseArgs option with a help text. */
export type CommandOption = NonNullable<ParseArgsConfig["options"]>[string] & {
  /** One line for `--help`. */
  description?: string;
};

import type { CliIO } from "./io.js";

/** Parsed arguments of a command. */
export interface CommandArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/** One `distdebug` command, loaded lazily by the dispatcher. */
export interface Command {
  /** The usage line after `distdebug`, for example `validate <file>...`. */
  usage: string;
  /** What it does, in a sentence or a short paragraph. */
  description: string;
  /** Options as `node:util` parseArgs takes them, with help texts; `help` and `json` are added for every command. */
  options: Record<string, CommandOption>;
  /** Runs the command and returns the exit code: 0 ok, 1 failed check, 2 bad usage or setup. */
  run: (args: CommandArgs, io: CliIO) => Promise<number>;
}

/** Declares a command (an identity function that gives the object its type). */
export function defineCommand(command: Command): Command {
  return command;
}

/**
 * A usage error: a {@link DistDebugError} with the code `USAGE`, which the dispatcher prints
 * with the command's usage line and turns into exit code 2.
 */
export function usageError(message: string): DistDebugError {
  return new DistDebugError({ code: "USAGE", message });
}

/** Reads a string option or throws a `USAGE` error. */
export function requireString(args: CommandArgs, name: string): string {
  const value = args.values[name];
  if (typeof value !== "string" || value === "") throw usageError(`--${name} is required`);
  return value;
}

/** Reads an optional string option. */
export function optionalString(args: CommandArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === "string" ? value : undefined;
}

/** Reads a repeatable string option as a list. */
export function stringList(args: CommandArgs, name: string): string[] {
  const value = args.values[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter(
    (item): item is string => typeof item === "string",
  );
}

/** Parses a duration such as `30s`, `5m`, `1500ms`, `2h` or a bare number of seconds into milliseconds. */
export function parseDuration(text: string, option: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match)
    throw usageError(
      `--${option}: expected a duration such as 30s, 5m or 1500ms, found ${JSON.stringify(text)}`,
    );
  const amount = Number(match[1]);
  const unit = match[2] ?? "s";
  const factor = unit === "ms" ? 1 : unit === "s" ? 1000 : unit === "m" ? 60_000 : 3_600_000;
  return Math.round(amount * factor);
}

/** Reads an optional whole-number option >= 1: undefined when absent, a `USAGE` error when not a number. */
export function optionalPositiveInt(args: CommandArgs, name: string): number | undefined {
  const value = optionalString(args, name);
  return value === undefined ? undefined : parsePositiveInt(value, name, 1);
}

/** Parses a positive integer option. */
export function parsePositiveInt(
  text: string | undefined,
  option: string,
  fallback: number,
): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw usageError(`--${option}: expected a whole number >= 1, found ${JSON.stringify(text)}`);
  return value;
}

/** A placeholder for a command whose package has not landed yet: exits 2 with a clear message. */
export function notImplemented(name: string): Command {
  return defineCommand({
    usage: name,
    description: "Not available in this version yet.",
    options: {},
    async run(_args, io) {
      io.stderr(`distdebug ${name}: not available in this version yet\n`);
      return 2;
    },
  });
}

/** The entries of `values` that are not undefined, for optional fields under `exactOptionalPropertyTypes`. */
export function defined<T extends Record<string, unknown>>(
  values: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
