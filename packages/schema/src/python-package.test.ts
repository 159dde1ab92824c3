import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repositoryRoot } from "./testing/examples.js";

/**
 * The pytest suite of the Python package python/distdebug-schema, one vitest test per pytest
 * test: pytest runs once (beforeAll) against the package installed from its folder into .venv
 * by scripts/setup-python.sh, and each of its tests passes, fails or is skipped here as it did
 * there, so the suite's closing line ("N passed, N failed") counts them. Without the venv, or
 * without pytest or the package in it, one test reports itself skipped and says why.
 */

const python = join(repositoryRoot, ".venv", "bin", "python");
const packageDir = join(repositoryRoot, "python", "distdebug-schema");

/** The pytest node ids (`tests/test_agent.py::test_x`), or why they cannot be listed. */
function collect(): { ids: string[]; missing?: string } {
  if (!existsSync(python)) return { ids: [], missing: ".venv/bin/python is missing" };
  const probe = spawnSync(python, ["-c", "import pytest, distdebug_schema"], { encoding: "utf8" });
  if (probe.status !== 0)
    return { ids: [], missing: "pytest or distdebug_schema is not installed in .venv" };
  const listing = execFileSync(python, ["-m", "pytest", "--collect-only", "-q"], {
    cwd: packageDir,
    encoding: "utf8",
  });
  return { ids: listing.split("\n").filter((line) => line.includes("::")) };
}

interface Outcome {
  status: "passed" | "failed" | "skipped";
  message: string;
}

const entities: Record<string, string> = {
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&apos;": "'",
  "&amp;": "&",
};
const xmlText = (text: string) =>
  text.replace(/&(?:lt|gt|quot|apos|amp|#\d+);/g, (entity) =>
    entity.startsWith("&#") ? String.fromCodePoint(Number(entity.slice(2, -1))) : entities[entity]!,
  );

/** Each test case of a JUnit XML report by `classname::name` (`tests.test_agent::test_x`). */
function readJunit(xml: string): Map<string, Outcome> {
  const outcomes = new Map<string, Outcome>();
  for (const [, attributes, body = ""] of xml.matchAll(
    /<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g,
  )) {
    const attribute = (name: string) =>
      xmlText(new RegExp(`\\b${name}="([^"]*)"`).exec(attributes ?? "")?.[1] ?? "");
    const status = /<(failure|error)\b/.test(body)
      ? "failed"
      : /<skipped\b/.test(body)
        ? "skipped"
        : "passed";
    outcomes.set(`${attribute("classname")}::${attribute("name")}`, {
      status,
      message: xmlText(body.replace(/<[^>]+>/g, "")).trim(),
    });
  }
  return outcomes;
}

/** `tests/test_agent.py::test_x[a]` as JUnit names it: `tests.test_agent::test_x[a]`. */
function junitKey(id: string): string {
  const at = id.indexOf("::");
  return `${id.slice(0, at).replace(/\.py$/, "").replaceAll("/", ".")}${id.slice(at)}`;
}

const { ids, missing } = collect();
let outcomes = new Map<string, Outcome>();
let report = "";
const folder = mkdtempSync(join(tmpdir(), "distdebug-pytest-"));

beforeAll(() => {
  if (ids.length === 0) return;
  const junit = join(folder, "junit.xml");
  const run = spawnSync(python, ["-m", "pytest", "-q", `--junitxml=${junit}`], {
    cwd: packageDir,
    encoding: "utf8",
  });
  report = `${run.stdout}${run.stderr}`;
  if (existsSync(junit)) outcomes = readJunit(readFileSync(junit, "utf8"));
}, 120_000); // pytest starts a Python interpreter: seconds on a loaded machine
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("python/distdebug-schema (pytest)", () => {
  it.skipIf(missing !== undefined)(
    `collects its tests${missing ? ` (skipped: ${missing}; run bash scripts/setup-python.sh)` : ""}`,
    () => {
      expect(ids.length).toBeGreaterThan(10);
    },
  );

  it.for(ids)("%s", (id, context) => {
    const outcome = outcomes.get(junitKey(id));
    expect(outcome, `pytest did not report ${id}:\n${report}`).toBeDefined();
    if (outcome?.status === "skipped") context.skip(outcome.message);
    expect(outcome?.status, outcome?.message).toBe("passed");
  });
});
