import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { serialize } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { loadResults } from "./load-results.js";
import { inMemorySources } from "./sources.js";
import { writeResultsFixture } from "./testing/results-fixture.js";
import { type ReportEvent, renderReport, writeReport } from "./write-report.js";

/** What the attempt page inlines of one of the incident's files, and of all of them (characters). */
const INLINE_FILE_CHARS = 65_536;
const INLINE_PAGE_CHARS = 262_144;

describe("renderReport", () => {
  it("writes an index and one page per attempt, with events", async () => {
    const results = await testdir();
    const { sources } = await writeResultsFixture(results);
    const out = await testdir();
    const events: ReportEvent[] = [];
    const written = await writeReport({
      results: [await loadResults(results)],
      outDir: out,
      sources,
      onEvent: (event) => events.push(event),
    });
    expect(written.files).toHaveLength(7);
    expect(written.files[0]).toBe("index.html");
    expect(written.files).toContain("attempts/fixture-config/beta-2/attempt-2.html");
    expect(events.at(-1)).toEqual({ type: "report-write", dir: out, files: 7 });
    const index = await readFile(written.index, "utf8");
    expect(index).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    const failed = await readFile(
      join(out, "attempts/fixture-config/beta-2/attempt-2.html"),
      "utf8",
    );
    expect(failed).toContain('<dd data-fact="status">agent-error</dd>');
    expect(failed).toContain("No valid diagnosis.json.");
    expect(failed).toMatch(/class="gold-block miss"[\s\S]*pkg\/lease\.go:20-25/);
  });

  it("escapes everything an agent wrote", async () => {
    const results = await testdir();
    await writeResultsFixture(results);
    const loaded = await loadResults(results);
    const attempt = loaded.attempts[0]!;
    attempt.trajectory!.steps.push({
      type: "command",
      command: "echo '<img src=x onerror=alert(1)>'",
      exitCode: 0,
      output: "<script>alert(1)</script>",
    });
    attempt.diagnosis!.summary = "</p><script>bad()</script>";
    const files = await renderReport({ results: [loaded] });
    const page = files.get("attempts/fixture-config/alpha-1/attempt-1.html")!;
    expect(page).not.toContain("<script>");
    expect(page).not.toContain("<img");
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("shows long files as windows around the marked lines, and says when source is missing", async () => {
    const results = await testdir();
    await writeResultsFixture(results);
    const long = `${Array.from({ length: 1000 }, (_, index) => `line ${index + 1}`).join("\n")}\n`;
    const files = await renderReport({
      results: [await loadResults(results)],
      sources: inMemorySources({ files: { "alpha-1": { "src/Server.java": long } } }),
    });
    const page = files.get("attempts/fixture-config/alpha-1/attempt-1.html")!;
    const lines = [...page.matchAll(/data-line="(\d+)"/g)].map((match) => Number(match[1]));
    expect(lines).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]);
    expect(page).toContain("&#8942; 5 lines");
    expect(page).toContain("&#8942; 982 lines");
    const other = files.get("attempts/fixture-config/gamma-3/attempt-2.html")!;
    expect(other).toContain(
      "Source not available for <code>app/node.py</code>, <code>app/other.py</code>.",
    );
  });

  it("lists an invalid attempt file as a problem on the page, not a crash", async () => {
    const results = await testdir();
    await writeResultsFixture(results);
    await writeFile(
      join(results, "alpha-1/attempt-2/trajectory.json"),
      serialize({ format: "distdebug.trajectory/1" }),
    );
    const loaded = await loadResults(results);
    const attempt = loaded.attempts.find(
      (candidate) => candidate.incidentId === "alpha-1" && candidate.attempt === 2,
    )!;
    expect(attempt.problems).toHaveLength(1);
    expect(attempt.problems[0]).toMatch(
      /alpha-1\/attempt-2\/trajectory\.json: not a valid trajectory/,
    );
    const files = await renderReport({ results: [loaded] });
    expect(files.get("attempts/fixture-config/alpha-1/attempt-2.html")).toContain(
      "No trajectory.json in this attempt.",
    );
  });

  it("shows the incident's title, report and artifacts above the trajectory, as text", async () => {
    const results = await testdir();
    const { sources } = await writeResultsFixture(results);
    const files = await renderReport({ results: [await loadResults(results)], sources });
    const page = files.get("attempts/fixture-config/beta-2/attempt-1.html")!;
    expect(page).toContain(
      '<dd data-fact="title">Lease &lt;b&gt;expires&lt;/b&gt; before renewal</dd>',
    );
    expect(page).toContain('<dd data-fact="system">beta</dd>');
    expect(page).toContain('<dd data-fact="languages">go</dd>');
    const section = page.indexOf('<section class="incident-files">');
    expect(section).toBeGreaterThan(0);
    expect(section).toBeLessThan(page.indexOf('<section class="trajectory">'));
    // The report and the artifact carry markup: it is shown, never rendered.
    expect(page).toContain(
      '<pre class="incident-text">Leases expire early.\n&lt;img src=x onerror=alert(1)&gt;\n</pre>',
    );
    expect(page).toContain(
      '<pre class="incident-text">renew failed &lt;script&gt;alert(2)&lt;/script&gt;\n</pre>',
    );
    expect(page).not.toMatch(/<img|<script|<b>/);
    expect(page).toContain('data-path="logs/lease.log" open><summary><code>logs/lease.log</code>');
    const alpha = files.get("attempts/fixture-config/alpha-1/attempt-2.html")!;
    expect(alpha).toContain("10:00:02 WARN lock released");
    expect(alpha).toContain("the old leader");
  });

  it("inlines at most 64 KiB of a file and 256 KiB of a page, and describes the rest", async () => {
    const results = await testdir();
    await writeResultsFixture(results);
    const log = Array.from({ length: 20_000 }, (_, index) => `line ${index + 1} <x>`).join("\n");
    const files = await renderReport({
      results: [await loadResults(results)],
      sources: inMemorySources({
        files: {},
        incidents: {
          "alpha-1": {
            title: "big logs",
            system: "alpha",
            languages: ["java"],
            report: "short report\n",
            artifacts: Array.from({ length: 6 }, (_, index) => ({
              path: `logs/node-${index + 1}.log`,
              content: log,
            })),
          },
        },
      }),
    });
    const page = files.get("attempts/fixture-config/alpha-1/attempt-1.html")!;
    const shown = [...page.matchAll(/<pre class="incident-text">([^<]*)<\/pre>/g)].map((match) =>
      match[1]!.replaceAll("&lt;", "<").replaceAll("&gt;", ">"),
    );
    // The report and four logs fill the page's budget; the last two logs are only described.
    expect(shown[0]).toBe("short report\n");
    expect(shown).toHaveLength(5);
    for (const text of shown.slice(1)) {
      expect(text.length).toBeLessThanOrEqual(INLINE_FILE_CHARS);
      expect(text.length).toBeGreaterThan(INLINE_FILE_CHARS - 40);
      expect(log.startsWith(text)).toBe(true);
      expect(text.endsWith("\n")).toBe(true);
    }
    expect(shown.reduce((total, text) => total + text.length, 0)).toBeLessThanOrEqual(
      INLINE_PAGE_CHARS,
    );
    expect(page).toContain(
      "Showing the first 4,760 of 20,000 lines (65,533 of 288,893 characters; at most 65,536 characters of a file are inlined); the whole file is <code>logs/node-1.log</code> in the incident folder of the dataset.",
    );
    for (const name of ["node-5", "node-6"])
      expect(page).toMatch(
        new RegExp(
          `data-path="logs/${name}\\.log"><summary>[\\s\\S]*?</summary><p class="muted clipped">Not shown: this page inlines at most 262,144 characters of the incident's files; all 20,000 lines \\(288,893 characters\\) are in <code>logs/${name}\\.log</code>`,
        ),
      );
  });
});
