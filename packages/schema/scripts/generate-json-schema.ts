/**
 * Writes packages/schema/json-schema/<kind>.schema.json (draft 2020-12) for every format.
 * Run with `pnpm schema:generate`; a test fails when the committed files are stale.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { jsonSchemaFiles } from "../src/json-schema.js";

const out = join(dirname(fileURLToPath(import.meta.url)), "..", "json-schema");
await mkdir(out, { recursive: true });
for (const [name, text] of Object.entries(jsonSchemaFiles())) {
  await writeFile(join(out, name), text);
}
