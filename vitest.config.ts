import { defineConfig } from "vitest/config";
import projects from "./vitest.workspace.js";

export default defineConfig({
  test: {
    projects,
    // Vitest's default is one worker fewer than the cores: one worker on the 2-core CI machine,
    // where most tests wait on child processes (bubblewrap, git, npm) and the CPU sat half idle.
    maxWorkers: 2,
    reporters: ["default", "./scripts/vitest-summary-reporter.ts"],
  },
});
