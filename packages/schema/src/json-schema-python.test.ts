import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type FormatKind, formats } from "./formats.js";
import { exampleDocuments, type Json, repositoryRoot } from "./testing/examples.js";

/**
 * Python's `jsonschema` (the version scripts/setup-python.sh installs in .venv) with the
 * committed JSON Schema files accepts every example file and rejects what zod rejects,
 * including the diagnosis blocks that it wrongly accepted before (issue 19).
 */

const python = join(repositoryRoot, ".venv", "bin", "python");
const missing = !existsSync(python);
const script = join(import.meta.dirname, "..", "fixtures", "validate-with-jsonschema.py");
const schemaDir = join(import.meta.dirname, "..", "json-schema");

interface Case {
  name: string;
  kind: FormatKind;
  document: Json;
}

function validateWithPython(cases: Case[]): { jsonschema: string; results: Map<string, boolean> } {
  const output = execFileSync(python, [script], {
    input: JSON.stringify({ schemaDir, cases }),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const reply = JSON.parse(output) as {
    jsonschema: string;
    results: { name: string; valid: boolean }[];
  };
  return {
    jsonschema: reply.jsonschema,
    results: new Map(reply.results.map((result) => [result.name, result.valid])),
  };
}

const diagnosis = (block: Json): Json => ({
  format: "distdebug.diagnosis/1",
  incidentId: "taskq-219",
  blocks: [block],
});
const gold = exampleDocuments("gold")[0]?.document as { [key: string]: Json } | undefined;
const history = exampleDocuments("repo_history")[0]?.document as
  | { [key: string]: Json }
  | undefined;
const run = exampleDocuments("run")[0]?.document;

/** Documents zod rejects that a Python validator accepted before issue 19. */
const rejected: Case[] = [
  {
    name: "block with lines, no path",
    kind: "diagnosis",
    document: diagnosis({ startLine: 3, endLine: 9 }),
  },
  {
    name: "block with neither path nor symbol",
    kind: "diagnosis",
    document: diagnosis({ reason: "x" }),
  },
  {
    name: "block with endLine, no startLine",
    kind: "diagnosis",
    document: diagnosis({ path: "a.py", endLine: 9 }),
  },
  {
    name: "symbol block with lines, no path",
    kind: "diagnosis",
    document: diagnosis({ symbol: "A.b", startLine: 2 }),
  },
  {
    name: "commit id with a final newline",
    kind: "gold",
    document: { ...gold, fix: { commit: `${"a".repeat(40)}\n` } },
  },
  { name: "needle of two code points", kind: "gold", document: { ...gold, needles: ["😀a"] } },
  {
    name: "history without a buggy commit",
    kind: "repo_history",
    document: {
      ...history,
      commits: ((history?.commits ?? []) as Json[]).map((commit) => ({
        ...(commit as object),
        role: "fix",
      })),
    },
  },
  {
    name: "bind over /tmp/",
    kind: "run",
    document: JSON.parse(JSON.stringify(run).replace('"target":"/opt/java/"', '"target":"/tmp/"')),
  },
  {
    name: "block with start_line and end_line (issue 30)",
    kind: "diagnosis",
    document: diagnosis({ path: "src/A.java", start_line: 129, end_line: 135 }),
  },
  {
    name: "gold with an unknown top-level key (issue 30)",
    kind: "gold",
    document: { ...gold, labeledBy: "someone" },
  },
];

describe("Python's jsonschema with the committed JSON Schema files", () => {
  it.skipIf(missing)(
    "accepts every example file and rejects what zod rejects" +
      (missing
        ? " (skipped: .venv/bin/python is missing; run `bash scripts/setup-python.sh`)"
        : ""),
    { timeout: 120_000 },
    () => {
      const examples: Case[] = (Object.keys(formats) as FormatKind[]).flatMap((kind) =>
        exampleDocuments(kind).map(({ file, document }) => ({ name: file, kind, document })),
      );
      for (const { name, kind, document } of rejected)
        expect(formats[kind].schema.safeParse(document).success, `zod on ${name}`).toBe(false);
      const { jsonschema, results } = validateWithPython([...examples, ...rejected]);
      expect(jsonschema).toBe("4.26.0");
      expect(examples.length).toBeGreaterThan(50);
      for (const { name } of examples) expect(results.get(name), name).toBe(true);
      for (const { name } of rejected) expect(results.get(name), name).toBe(false);
    },
  );
});
