import type { Artifact } from "@distdebug/schema";
import { findLogRecords, type LogRecord } from "./internal/log-records.js";
import { type FrameReference, findFrames } from "./internal/stack-frames.js";
import {
  collectLiterals,
  isSourcePath,
  type LiteralPattern,
  lettersOf,
  literalPattern,
  matchesInOrder,
  printsWhole,
} from "./internal/string-literals.js";

/** The files of a repository at one revision, as {@link checkArtifacts} reads them. */
export interface SourceTree {
  /** Repository-relative POSIX paths of every file at the revision. */
  readonly paths: readonly string[];
  /** One file's text; undefined when it cannot be read. */
  read(path: string): Promise<string | undefined>;
}

/** One artifact's text, as the agent gets it. */
export interface ArtifactText {
  /** The artifact's path in the incident folder, for messages. */
  readonly path: string;
  readonly kind: Artifact["kind"];
  readonly text: string;
}

/** Options of {@link checkArtifacts}. */
export interface CheckArtifactsOptions {
  readonly artifacts: readonly ArtifactText[];
  /** The repository at the incident's buggy revision. */
  readonly tree: SourceTree;
  /**
   * Letters of constant text a literal must print for a log line to count as explained
   * (fewer for a short message: 60% of its letters). Default 12.
   */
  readonly minimumLetters?: number;
}

/** What {@link checkArtifacts} found. */
export interface ArtifactCheck {
  /** One line each: a frame or a log line the buggy revision cannot have produced. */
  readonly problems: string[];
  /** Frames checked against a file of the repository. */
  readonly framesChecked: number;
  /** Frames outside the project (libraries, the runtime), not checked. */
  readonly framesExternal: number;
  /** Log records checked against the code's literals. */
  readonly logLinesChecked: number;
}

/** The share of a short message's letters a literal must print to explain it. */
const MESSAGE_SHARE = 0.6;

const DEFAULT_MINIMUM_LETTERS = 12;

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Paths by file name, to resolve a frame's path suffix. */
function indexByName(paths: readonly string[]): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const path of paths) {
    const name = baseName(path);
    const list = byName.get(name);
    if (list) list.push(path);
    else byName.set(name, [path]);
  }
  return byName;
}

/** Repository paths the frame's file can be: the longest matching path suffix wins. */
function candidates(file: string, byName: Map<string, string[]>): string[] {
  const hint = file.replace(/^\.?\//, "").split("/");
  const named = byName.get(hint[hint.length - 1] ?? "") ?? [];
  let best = 0;
  let chosen: string[] = [];
  for (const path of named) {
    const parts = path.split("/");
    let shared = 0;
    while (
      shared < parts.length &&
      shared < hint.length &&
      parts[parts.length - 1 - shared] === hint[hint.length - 1 - shared]
    )
      shared += 1;
    if (shared > best) {
      best = shared;
      chosen = [path];
    } else if (shared === best && shared > 0) chosen.push(path);
  }
  // A path hint with folders must share at least one of them, unless it is absolute (a build path).
  if (hint.length > 1 && best < 2 && !file.startsWith("/")) return [];
  return chosen;
}

/** Whether the project has code in a Java package (or a parent of it). */
function isProjectPackage(javaPackage: string, paths: readonly string[]): boolean {
  const prefix = javaPackage.split(".").slice(0, 3).join("/");
  return prefix !== "" && paths.some((path) => path.includes(`/${prefix}/`));
}

function hasIdentifier(text: string, name: string, beforeLine?: number): boolean {
  const scope = beforeLine === undefined ? text : text.split("\n").slice(0, beforeLine).join("\n");
  const escaped = name.replace(/[$]/g, "\\$");
  return new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`).test(scope);
}

/** Why a frame cannot come from a file, or undefined when the file fits it. */
function frameMisfit(frame: FrameReference, text: string): string | undefined {
  const lines = text.split("\n");
  const count = text.endsWith("\n") ? lines.length - 1 : lines.length;
  if (frame.line === undefined) return undefined;
  if (frame.line < 1 || frame.line > count)
    return `line ${frame.line} is past the file's ${count} lines`;
  if ((lines[frame.line - 1] ?? "").trim() === "") return `line ${frame.line} is blank`;
  if (frame.method && !hasIdentifier(text, frame.method, frame.line)) {
    // A compiler's bridge method reports its class's declaration line.
    const bridge =
      /\b(?:class|interface|enum|record|object|trait)\s/.test(lines[frame.line - 1] ?? "") &&
      hasIdentifier(text, frame.method);
    if (!bridge) return `no ${frame.method} at or before line ${frame.line}`;
  }
  return undefined;
}

interface Context {
  readonly tree: SourceTree;
  readonly byName: Map<string, string[]>;
  readonly texts: Map<string, string | undefined>;
}

async function textOf(context: Context, path: string): Promise<string | undefined> {
  if (!context.texts.has(path)) context.texts.set(path, await context.tree.read(path));
  return context.texts.get(path);
}

/** A function-only frame (`processCommand+0x2d`): some source file defines or calls it. */
async function functionExists(context: Context, name: string): Promise<boolean> {
  for (const path of context.tree.paths) {
    if (!isSourcePath(path)) continue;
    const text = await textOf(context, path);
    if (text && hasIdentifier(text, name)) return true;
  }
  return false;
}

type FrameVerdict = "checked" | "external" | string;

async function checkFrame(context: Context, frame: FrameReference): Promise<FrameVerdict> {
  if (frame.external) return "external";
  if (!frame.file) {
    if (!frame.method) return "external";
    return (await functionExists(context, frame.method))
      ? "checked"
      : `no function ${frame.method} in the repository`;
  }
  const paths = candidates(frame.file, context.byName);
  if (paths.length === 0) {
    const inProject =
      frame.javaPackage !== undefined && isProjectPackage(frame.javaPackage, context.tree.paths);
    return inProject ? `no file ${frame.file} in the repository` : "external";
  }
  const misfits: string[] = [];
  for (const path of paths) {
    const text = await textOf(context, path);
    if (text === undefined) return "checked";
    const misfit = frameMisfit(frame, text);
    if (!misfit) return "checked";
    misfits.push(`${path}: ${misfit}`);
  }
  return misfits.join("; ");
}

async function literalsOf(context: Context): Promise<LiteralPattern[]> {
  const raw = new Set<string>();
  for (const path of context.tree.paths) {
    if (!isSourcePath(path)) continue;
    const text = await textOf(context, path);
    if (text) collectLiterals(path, text, raw);
  }
  const patterns: LiteralPattern[] = [];
  for (const literal of raw) {
    const pattern = literalPattern(literal);
    if (pattern) patterns.push(pattern);
  }
  return patterns;
}

function explains(pattern: LiteralPattern, record: LogRecord, minimumLetters: number): boolean {
  if (!record.text.includes(pattern.longest) || !matchesInOrder(pattern, record.text)) return false;
  const needed = Math.min(minimumLetters, Math.ceil(MESSAGE_SHARE * lettersOf(record.message)));
  if (pattern.letters >= Math.max(needed, 3)) return true;
  return printsWhole(pattern, record.message);
}

function quote(text: string): string {
  const flat = text.trim();
  return JSON.stringify(flat.length > 100 ? `${flat.slice(0, 97)}...` : flat);
}

/**
 * Checks an incident's artifacts against the repository at its buggy revision, as
 * CATALOG.md asks: every in-project stack frame names a file of the repository, a line
 * inside it that is not blank, and a method defined (or named) at or before that line;
 * every log record (a line with a timestamp, a level, or a JSON/logfmt message) holds the
 * constant text of some string literal of the code, in order, with its placeholders
 * (`%s`, `{}`, `%v`, ...) standing for anything. Frames of libraries and the runtime
 * (packages with no code in the repository, module caches, toolchains) are counted and
 * skipped. Artifacts of kind `other` (a tool's output) are checked for frames only.
 *
 * @example
 * ```ts
 * const result = await checkArtifacts({ artifacts: [{ path: "logs/server.log", kind: "log", text }], tree });
 * for (const problem of result.problems) console.log(problem);
 * ```
 */
export async function checkArtifacts(options: CheckArtifactsOptions): Promise<ArtifactCheck> {
  const context: Context = {
    tree: options.tree,
    byName: indexByName(options.tree.paths),
    texts: new Map(),
  };
  const minimumLetters = options.minimumLetters ?? DEFAULT_MINIMUM_LETTERS;
  const problems: string[] = [];
  let framesChecked = 0;
  let framesExternal = 0;
  let logLinesChecked = 0;
  let literals: LiteralPattern[] | undefined;
  for (const artifact of options.artifacts) {
    for (const frame of findFrames(artifact.text)) {
      // A tool's output may name files of other programs (`helper.go:776]`): only real frames.
      if (artifact.kind === "other" && frame.method === undefined && !frame.javaPackage) continue;
      const verdict = await checkFrame(context, frame);
      if (verdict === "checked") framesChecked += 1;
      else if (verdict === "external") framesExternal += 1;
      else
        problems.push(
          `${artifact.path}:${frame.artifactLine}: frame ${quote(frame.text)}: ${verdict}`,
        );
    }
    if (artifact.kind === "other") continue;
    const records = findLogRecords(artifact.text);
    if (records.length === 0) continue;
    literals ??= await literalsOf(context);
    for (const record of records) {
      logLinesChecked += 1;
      if (!literals.some((pattern) => explains(pattern, record, minimumLetters)))
        problems.push(
          `${artifact.path}:${record.artifactLine}: no string literal at the buggy revision prints ${quote(record.message)}`,
        );
    }
  }
  return { problems, framesChecked, framesExternal, logLinesChecked };
}
