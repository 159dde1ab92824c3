import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Language } from "@distdebug/schema";
import { expect, test } from "vitest";
import { LANGUAGE_SPECS } from "./internal/specs.js";

const require = createRequire(import.meta.url);

interface NodeType {
  type: string;
  named: boolean;
  fields?: Record<string, unknown>;
}

function nodeTypes(language: Language): NodeType[] {
  const name = language === "cpp" ? "tree-sitter-cpp" : `tree-sitter-${language}`;
  const root = dirname(require.resolve(`${name}/package.json`));
  return JSON.parse(readFileSync(join(root, "src", "node-types.json"), "utf8")) as NodeType[];
}

test.each(Object.keys(LANGUAGE_SPECS) as Language[])(
  "%s: every container, comment and field exists in the grammar's node-types.json",
  (language) => {
    const types = new Map(
      nodeTypes(language)
        .filter((t) => t.named)
        .map((t) => [t.type, t]),
    );
    const spec = LANGUAGE_SPECS[language];
    for (const [type, container] of Object.entries(spec.containers)) {
      const info = types.get(type);
      expect(info, `${language} ${type}`).toBeDefined();
      for (const field of [...(container.fields ?? []), ...(container.exclude ?? [])])
        expect(Object.keys(info?.fields ?? {}), `${language} ${type}.${field}`).toContain(field);
    }
    for (const type of spec.comments) expect(types.has(type), `${language} ${type}`).toBe(true);
  },
);
