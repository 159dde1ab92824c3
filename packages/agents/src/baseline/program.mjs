// @ts-check
/**
 * The offline baseline agent's program. It runs inside the sandbox like any agent, as a plain
 * node program with no dependencies: it reads the task (report, logs, stack traces) from
 * DISTDEBUG_TASK, ranks the code of DISTDEBUG_WORKSPACE by lexical evidence (BM25 over code
 * lines with their enclosing definition names, stack frames resolved to files and lines), and
 * writes a diagnosis of the top blocks within a row budget plus a trajectory of what it did to
 * DISTDEBUG_OUTPUT. Deterministic: the same inputs give the same files.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { extname, join, relative } from "node:path";

const SOURCE_EXTENSIONS = new Set([
  ".java",
  ".go",
  ".rs",
  ".py",
  ".pyi",
  ".cc",
  ".cpp",
  ".cxx",
  ".hpp",
  ".hh",
  ".h",
  ".scala",
  ".sc",
  ".c",
]);
const SKIP_DIRS = new Set([
  ".git",
  "node_modules",
  "target",
  "build",
  "dist",
  "vendor",
  "third_party",
  ".idea",
]);
const MAX_FILE_BYTES = 1024 * 1024;

const STOPWORDS = new Set(
  `a an and are as at be but by for from has have if in into is it its of on or that the this to was were will with
  not no when then than after before while which who what where how we our you your they them he she i me my
  do does did done can could should would may might must shall also there their here over under up down out
  all any each every some more most other such only own same so too very just new old get set let var val
  int long void public private protected static final class return true false null nil none self this import
  package func fn def end else elif case break continue try catch throw throws finally struct impl pub mut use
  const string bool err error errors java go rust python scala cpp log logs info warn debug trace line lines
  file files value values type types org com net io util lang main src test tests`.split(/\s+/),
);

/** @param {string} text */
function tokens(text) {
  /** @type {string[]} */
  const out = [];
  for (const word of text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
    const parts = word
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
      .split(/[\s_]+/)
      .map((part) => part.toLowerCase())
      .filter((part) => part.length > 2 && !STOPWORDS.has(part));
    out.push(...parts);
    const whole = word.toLowerCase();
    if (parts.length > 1 && whole.length > 3) out.push(whole);
  }
  return out;
}

/** Definition headers per language family (a heuristic: the name is the last group). */
const DEFINITION = [
  /^\s*(?:(?:public|private|protected|static|final|synchronized|abstract|native|default|override|inline|virtual|async|unsafe|pub(?:\([a-z]+\))?|extern)\s+)*(?:[\w<>[\],.?:*&\s]+\s+)?([A-Za-z_]\w*)\s*\([^;]*$/,
  /^\s*func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)/,
  /^\s*(?:pub(?:\([a-z]+\))?\s+)?(?:async\s+)?fn\s+([A-Za-z_]\w*)/,
  /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)/,
  /^\s*(?:(?:public|private|protected|abstract|final|sealed|case|implicit|override)\s+)*(?:class|object|trait|interface|struct|enum|impl|type)\s+([A-Za-z_]\w*)/,
];
const NOT_DEFINITION =
  /^\s*(if|for|while|switch|catch|return|else|do|synchronized|try|match|when|new)\b/;

/** @param {string} line */
function definitionName(line) {
  if (NOT_DEFINITION.test(line)) return undefined;
  for (const pattern of DEFINITION) {
    const match = pattern.exec(line);
    if (match?.[1] && !STOPWORDS.has(match[1].toLowerCase())) return match[1];
  }
  return undefined;
}

/** @param {string} line */
function isSignificant(line) {
  const trimmed = line.trim();
  if (trimmed === "") return false;
  if (/^[{}()[\];,]+$/.test(trimmed)) return false;
  if (/^(\/\/|#(?!include|define|if|ifdef|ifndef|else|endif)|\/\*|\*|\*\/|--)/.test(trimmed))
    return false;
  return true;
}

/**
 * @param {string} root
 * @returns {string[]} repository-relative POSIX paths of source files, sorted
 */
function sourceFiles(root) {
  /** @type {string[]} */
  const out = [];
  /** @param {string} dir */
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) walk(path);
      } else if (entry.isFile() && SOURCE_EXTENSIONS.has(extname(entry.name).toLowerCase())) {
        out.push(relative(root, path).split("\\").join("/"));
      }
    }
  };
  walk(root);
  return out;
}

/** Stack frames and file:line references found in text. */
const FRAME_PATTERNS = [
  // Java/Scala: at org.pkg.Class.method(File.java:123)
  {
    re: /at\s+([\w$.]+)\.([\w$<>]+)\(([\w$]+\.(?:java|scala)):(\d+)\)/g,
    file: 3,
    line: 4,
    method: 2,
  },
  // Python: File "x/y.py", line 12, in f
  { re: /File "([^"]+\.py)", line (\d+), in (\w+)/g, file: 1, line: 2, method: 3 },
  // Generic path:line (Go, Rust, C, C++ traces and log prefixes)
  {
    re: /([\w./-]+\.(?:go|rs|c|cc|cpp|cxx|h|hpp|hh|py|java|scala)):(\d+)/g,
    file: 1,
    line: 2,
    method: 0,
  },
];

/**
 * @param {string} text
 * @returns {{ file: string, line: number, method?: string }[]}
 */
function frames(text) {
  /** @type {{ file: string, line: number, method?: string }[]} */
  const out = [];
  for (const pattern of FRAME_PATTERNS) {
    for (const match of text.matchAll(pattern.re)) {
      const file = match[pattern.file] ?? "";
      const line = Number(match[pattern.line]);
      const method = pattern.method ? match[pattern.method] : undefined;
      if (file && line > 0) out.push(method ? { file, line, method } : { file, line });
    }
  }
  return out;
}

/** @param {string} dir @param {string} name */
function readText(dir, name) {
  try {
    return readFileSync(join(dir, name), "utf8");
  } catch {
    return "";
  }
}

function main() {
  const started = Date.now();
  const taskDir = process.env.DISTDEBUG_TASK ?? "/task";
  const workspace = process.env.DISTDEBUG_WORKSPACE ?? "/workspace";
  const outputDir = process.env.DISTDEBUG_OUTPUT ?? "/output";
  const rowBudget = Number(process.env.DISTDEBUG_ROW_BUDGET ?? "60") || 60;
  const blockRows = 6;
  /** @type {{ type: "message", role: "assistant" | "user", content: string }[]} */
  const steps = [];
  const note = (/** @type {string} */ content) =>
    steps.push({ type: "message", role: "assistant", content });

  const task = JSON.parse(readText(taskDir, "task.json") || "{}");
  const incidentId = String(task.id ?? process.env.DISTDEBUG_INCIDENT_ID ?? "unknown");
  const report = readText(taskDir, task.report ?? "report.md");
  steps.push({ type: "message", role: "user", content: report });
  /** @type {string[]} */
  const artifactTexts = [];
  for (const artifact of task.artifacts ?? []) {
    const text = readText(taskDir, artifact.path);
    artifactTexts.push(text);
    note(`read ${artifact.path} (${text.length} characters)`);
  }
  const evidence = [report, ...artifactTexts].join("\n");

  // Query: term frequencies, stack-frame methods counted extra.
  /** @type {Map<string, number>} */
  const query = new Map();
  for (const token of tokens(evidence)) query.set(token, (query.get(token) ?? 0) + 1);
  const stack = frames(evidence);
  for (const frame of stack) {
    if (frame.method)
      for (const token of tokens(frame.method)) query.set(token, (query.get(token) ?? 0) + 3);
  }

  // Documents: significant source lines, with the enclosing definition's name as context.
  const files = sourceFiles(workspace);
  /** @type {{ path: string, line: number, terms: Map<string, number>, length: number }[]} */
  const docs = [];
  /** @type {Map<string, string[]>} */
  const fileLines = new Map();
  /** @type {Map<string, number>} */
  const documentFrequency = new Map();
  for (const path of files) {
    let text;
    try {
      if (statSync(join(workspace, path)).size > MAX_FILE_BYTES) continue;
      text = readFileSync(join(workspace, path), "utf8");
    } catch {
      continue;
    }
    const lines = text.split(/\r?\n/);
    fileLines.set(path, lines);
    const stem = path.slice(path.lastIndexOf("/") + 1).replace(/\.[^.]+$/, "");
    /** @type {{ indent: number, name: string }[]} */
    const scopes = [];
    lines.forEach((line, index) => {
      if (!isSignificant(line)) return;
      const indent = line.length - line.trimStart().length;
      while (
        scopes.length > 0 &&
        scopes[scopes.length - 1].indent >= indent &&
        !/^\s*[})\]]/.test(line)
      )
        scopes.pop();
      const name = definitionName(line);
      /** @type {Map<string, number>} */
      const terms = new Map();
      for (const token of tokens(line)) terms.set(token, (terms.get(token) ?? 0) + 1);
      for (const scope of scopes)
        for (const token of tokens(scope.name)) terms.set(token, (terms.get(token) ?? 0) + 0.5);
      for (const token of tokens(stem)) terms.set(token, (terms.get(token) ?? 0) + 0.25);
      if (name) scopes.push({ indent, name });
      let length = 0;
      for (const [term, count] of terms) {
        length += count;
        documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
      }
      docs.push({ path, line: index + 1, terms, length });
    });
  }
  note(
    `indexed ${files.length} source files, ${docs.length} code lines; ${query.size} query terms; ${stack.length} stack frames`,
  );

  // BM25 per line.
  const k1 = 1.2;
  const b = 0.75;
  const averageLength = docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(1, docs.length);
  /** @type {Map<string, number>} */
  const lineScore = new Map();
  for (const doc of docs) {
    let score = 0;
    for (const [term, weight] of query) {
      const tf = doc.terms.get(term);
      if (!tf) continue;
      const df = documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
      score +=
        idf *
        ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * doc.length) / averageLength))) *
        Math.log(1 + weight);
    }
    if (score > 0) lineScore.set(`${doc.path}\u0000${doc.line}`, score);
  }

  // Stack frames resolved to files in the workspace: the named line gets a strong boost.
  let resolvedFrames = 0;
  for (const frame of stack) {
    const base = frame.file.slice(frame.file.lastIndexOf("/") + 1);
    const matches = files.filter(
      (path) =>
        path === frame.file ||
        path.endsWith(`/${frame.file}`) ||
        path.endsWith(`/${base}`) ||
        path === base,
    );
    if (matches.length !== 1) continue;
    resolvedFrames += 1;
    const key = `${matches[0]}\u0000${frame.line}`;
    lineScore.set(key, (lineScore.get(key) ?? 0) + 8);
  }
  note(`resolved ${resolvedFrames} of ${stack.length} stack frames to workspace files`);

  // Files named in the evidence (by stem) weigh more.
  const evidenceLower = evidence.toLowerCase();
  const ranked = [...lineScore.entries()]
    .map(([key, score]) => {
      const [path, line] = key.split("\u0000");
      const stem = (path ?? "")
        .slice((path ?? "").lastIndexOf("/") + 1)
        .replace(/\.[^.]+$/, "")
        .toLowerCase();
      const named = stem.length > 3 && evidenceLower.includes(stem) ? 1.5 : 1;
      return { path: path ?? "", line: Number(line), score: score * named };
    })
    .sort(
      (x, y) => y.score - x.score || (x.path < y.path ? -1 : x.path > y.path ? 1 : x.line - y.line),
    );

  // Blocks: a window around each top line, merged, until the row budget is spent.
  /** @type {{ path: string, startLine: number, endLine: number, score: number }[]} */
  const blocks = [];
  let rows = 0;
  for (const hit of ranked) {
    if (rows >= rowBudget) break;
    if (
      blocks.some(
        (block) =>
          block.path === hit.path && hit.line >= block.startLine && hit.line <= block.endLine,
      )
    )
      continue;
    const total = fileLines.get(hit.path)?.length ?? hit.line;
    const startLine = Math.max(1, hit.line - Math.floor(blockRows / 2) + 1);
    const endLine = Math.min(total, startLine + blockRows - 1);
    const size = endLine - startLine + 1;
    if (rows + size > rowBudget) continue;
    blocks.push({ path: hit.path, startLine, endLine, score: hit.score });
    rows += size;
  }
  note(`selected ${blocks.length} blocks (${rows} rows of a ${rowBudget}-row budget)`);

  const diagnosis = {
    format: "distdebug.diagnosis/1",
    incidentId,
    blocks: blocks.map((block) => ({
      path: block.path,
      startLine: block.startLine,
      endLine: block.endLine,
      reason: `lexical evidence score ${block.score.toFixed(3)}`,
    })),
    summary: "Baseline: code lines ranked by BM25 against the report, logs and stack traces.",
  };
  writeFileSync(join(outputDir, "diagnosis.json"), `${JSON.stringify(diagnosis, null, 2)}\n`);
  const trajectory = {
    format: "distdebug.trajectory/1",
    incidentId,
    agent: { name: "baseline", version: "1" },
    exitStatus: "submitted",
    usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, calls: 0, costUsd: 0 },
    steps,
    durationMs: Date.now() - started,
  };
  writeFileSync(join(outputDir, "trajectory.json"), `${JSON.stringify(trajectory, null, 2)}\n`);
}

main();
