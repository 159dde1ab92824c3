import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formats } from "./formats.js";
import { jsonSchemaFiles } from "./json-schema.js";
import { pythonSchemaDir } from "./testing/examples.js";

const dir = join(import.meta.dirname, "..", "json-schema");

describe("committed JSON Schema files", () => {
  it("equal freshly generated ones (run `pnpm schema:generate` after changing a schema)", async () => {
    const fresh = jsonSchemaFiles();
    const committed = (await readdir(dir)).filter((name) => name.endsWith(".schema.json")).sort();
    expect(committed).toEqual(Object.keys(fresh).sort());
    for (const [name, text] of Object.entries(fresh)) {
      expect(await readFile(join(dir, name), "utf8"), name).toBe(text);
    }
  });

  it("are copied unchanged into the Python package distdebug-schema (`pnpm schema:generate` writes both)", async () => {
    const fresh = jsonSchemaFiles();
    const copied = (await readdir(pythonSchemaDir))
      .filter((name) => name.endsWith(".schema.json"))
      .sort();
    expect(copied).toEqual(Object.keys(fresh).sort());
    for (const [name, text] of Object.entries(fresh))
      expect(await readFile(join(pythonSchemaDir, name), "utf8"), name).toBe(text);
  });

  it("are draft 2020-12 and pin each kind's format tag", () => {
    const fresh = jsonSchemaFiles();
    for (const kind of Object.keys(formats)) {
      const schema = JSON.parse(fresh[`${kind}.schema.json`]!);
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(schema.properties.format.const ?? schema.properties.format.default).toBe(
        `distdebug.${kind}/1`,
      );
    }
  });

  it("name the rules JSON Schema cannot say in their description, and only those", () => {
    const fresh = jsonSchemaFiles();
    const stated = Object.entries(fresh)
      .filter(([, text]) => text.includes("Not expressible in JSON Schema"))
      .map(([name]) => name);
    expect(stated).toEqual(["gold.schema.json", "repo_history.schema.json"]);
  });

  it("keep no private zod format names and only ASCII-digit, end-anchored patterns", () => {
    let anchored = 0;
    for (const [name, text] of Object.entries(jsonSchemaFiles())) {
      expect(text, name).not.toContain('"format": "starts_with"');
      expect(text, name).not.toMatch(/\\\\d/);
      for (const [, pattern] of text.matchAll(/"pattern": "((?:[^"\\]|\\.)*)"/g))
        if (pattern!.endsWith("$") || pattern!.endsWith("(?!\\\\n)")) {
          anchored++;
          expect(pattern!.endsWith("$(?!\\\\n)"), `${name}: ${pattern}`).toBe(true);
        }
    }
    expect(anchored).toBeGreaterThan(10);
  });
});
