import { defineProject } from "vitest/config";

/** Resolve workspace packages to their TypeScript sources (no build step in tests). */
const conditions = ["@distdebug/source", "node", "import", "module", "default"];

/**
 * The vitest project settings every package shares.
 * @param name - the project name shown by vitest (the package folder name).
 */
export function defineDistdebugProject(name: string) {
  return defineProject({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ["@distdebug/source"] } },
    test: {
      name,
      environment: "node",
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  });
}
