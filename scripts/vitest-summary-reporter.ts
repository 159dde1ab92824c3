import type { Reporter, TestModule } from "vitest/node";

/**
 * Prints one closing line, `tests: N passed, N failed, N skipped, N unfinished`, after vitest's
 * own report, so CI logs state plainly how many tests ran. A test file whose worker died
 * (vitest then reports only "Worker exited unexpectedly", naming no file) is named, with its
 * tests that never ended, one line each: the log then says which file to look at.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    let unfinished = 0;
    const lines: string[] = [];
    for (const module of testModules) {
      const open: string[] = [];
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") failed += 1;
        else if (state === "skipped") skipped += 1;
        else open.push(test.fullName);
      }
      unfinished += open.length;
      const state = module.state();
      if (state === "failed" && [...module.children.allTests()].length === 0) failed += 1;
      if (open.length > 0 || state === "pending" || state === "queued") {
        lines.push(`unfinished: ${module.project.name} ${module.relativeModuleId} (${state})`);
        for (const name of open) lines.push(`  never ended: ${name}`);
      }
    }
    process.stdout.write(
      `\n${lines.map((line) => `${line}\n`).join("")}tests: ${passed} passed, ${failed} failed, ${skipped} skipped, ${unfinished} unfinished\n`,
    );
  }
}
