/**
 * Writes packages/schema/json-schema/<kind>.schema.json (draft 2020-12) for every format, and
 * the same files into the Python package (python/distdebug-schema/src/distdebug_schema/schemas).
 * Run with `pnpm schema:generate`; tests fail when either copy is stale.
 */
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { jsonSchemaFiles } from "../src/json-schema.js";
import { pythonSchemaDir } from "../src/testing/examples.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const files = jsonSchemaFiles();
for (const out of [join(packageDir, "json-schema"), pythonSchemaDir]) {
  await mkdir(out, { recursive: true });
  for (const name of await readdir(out))
    if (name.endsWith(".schema.json") && !(name in files)) await rm(join(out, name));
  for (const [name, text] of Object.entries(files)) await writeFile(join(out, name), text);
}
