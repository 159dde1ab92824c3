import { readFile } from "node:fs/promises";
import { basename, dirname, extname, isAbsolute, resolve } from "node:path";
import { parseDocument, parse as parseYaml } from "yaml";
import { type RunConfig, RunConfig as RunConfigSchema } from "./config.js";
import { DistDebugError } from "./errors.js";
import { describeYamlError } from "./internal/yaml-error.js";
import { validateWith } from "./parse.js";

type Plain = Record<string, unknown>;
const isPlain = (value: unknown): value is Plain =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Deep-merges config layers: objects merge key by key, everything else (arrays too) is replaced. */
export function mergeConfigLayers(...layers: unknown[]): Plain {
  const merge = (base: unknown, over: unknown): unknown => {
    if (!isPlain(base) || !isPlain(over)) return over === undefined ? base : over;
    const out: Plain = { ...base };
    for (const [key, value] of Object.entries(over)) out[key] = merge(base[key], value);
    return out;
  };
  let result: unknown = {};
  for (const layer of layers) result = merge(result, layer);
  return isPlain(result) ? result : {};
}

/**
 * Applies `key.path=value` overrides; the value is read as YAML (`3`, `true`, `[a, b]`, text).
 * Throws `INVALID_ARGUMENT` for an override without `=`.
 */
export function applyOverrides(config: Plain, overrides: readonly string[]): Plain {
  let out = config;
  for (const override of overrides) {
    const eq = override.indexOf("=");
    if (eq <= 0) {
      throw new DistDebugError({
        code: "INVALID_ARGUMENT",
        message: `override ${JSON.stringify(override)}: expected key.path=value, for example agent.stepLimit=50`,
      });
    }
    const keys = override.slice(0, eq).split(".");
    const raw = override.slice(eq + 1);
    let value: unknown;
    try {
      value = parseYaml(raw);
    } catch {
      value = raw;
    }
    const layer: Plain = {};
    let cursor = layer;
    keys.forEach((key, index) => {
      if (index === keys.length - 1) cursor[key] = value;
      else {
        const next: Plain = {};
        cursor[key] = next;
        cursor = next;
      }
    });
    out = mergeConfigLayers(out, layer);
  }
  return out;
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** YAML files, merged in order (later wins). */
  files: readonly string[];
  /** `key.path=value` overrides applied last. */
  overrides?: readonly string[];
}

/**
 * Reads, merges and validates run config YAML files. `${VAR}` references stay as they are:
 * resolve them at run time with {@link resolveConfigEnv} and never write the result to disk.
 * Without a `name`, the config is named after its last file: `configs/mini-swe-agent/gpt-5.4.yaml`
 * becomes `mini-swe-agent-gpt-5.4` (agent folder and file under `configs/`), `my.yaml` becomes `my`.
 *
 * @example
 * ```ts
 * const config = await loadConfig({ files: ["configs/mini-swe-agent/gpt-5.4.yaml"], overrides: ["run.attempts=1"] });
 * ```
 */
export async function loadConfig(options: LoadConfigOptions): Promise<RunConfig> {
  if (options.files.length === 0) {
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: "loadConfig: at least one config file is needed",
    });
  }
  const layers: unknown[] = [];
  for (const file of options.files) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new DistDebugError({
        code: code === "ENOENT" ? "FILE_NOT_FOUND" : "NOT_A_FILE",
        message:
          code === "ENOENT"
            ? `${file}: no such config file`
            : `${file}: cannot be read as a config file (${code})`,
        data: { path: file },
        cause: error,
      });
    }
    const document = parseDocument(text, { prettyErrors: true });
    if (document.errors.length > 0) {
      const { message, line } = describeYamlError(text, document.errors[0]!);
      throw new DistDebugError({
        code: "INVALID_CONFIG",
        message: `${file}: not valid YAML at ${message}`,
        data: { path: file, line },
      });
    }
    const value: unknown = document.toJS();
    if (value !== null && value !== undefined && !isPlain(value)) {
      throw new DistDebugError({
        code: "INVALID_CONFIG",
        message: `${file}: expected a YAML mapping at the top level`,
      });
    }
    layers.push(resolveRelativePaths(value ?? {}, dirname(resolve(file))));
  }
  let merged = mergeConfigLayers(...layers);
  merged = resolveRelativePaths(applyOverrides(merged, options.overrides ?? []), process.cwd());
  if (merged.name === undefined) {
    const last = options.files.at(-1)!;
    const stem = basename(last, extname(last));
    const parent = basename(dirname(last));
    const inConfigs = basename(dirname(dirname(last))) === "configs";
    merged.name = inConfigs ? `${parent}-${stem}` : stem;
  }
  const sources = [
    ...options.files,
    ...(options.overrides ?? []).map((override) => `--set ${override}`),
  ];
  return validateWith(RunConfigSchema, "config", merged, sources.join(" + "));
}

/** A layer with its relative paths (bind sources, `model.script`) made absolute against `base`. */
function resolveRelativePaths(layer: Plain, base: string): Plain {
  const withBinds = resolveBindSources(layer, base);
  const model = withBinds.model;
  if (!isPlain(model) || typeof model.script !== "string" || isAbsolute(model.script))
    return withBinds;
  return { ...withBinds, model: { ...model, script: resolve(base, model.script) } };
}

/**
 * A layer with each relative `environment.sandbox.readOnlyBinds[].source` made absolute against
 * `base` (a config file's folder; the working directory for `--set` overrides).
 */
function resolveBindSources(layer: Plain, base: string): Plain {
  const environment = layer.environment;
  const sandbox = isPlain(environment) ? environment.sandbox : undefined;
  const binds = isPlain(sandbox) ? sandbox.readOnlyBinds : undefined;
  if (!isPlain(environment) || !isPlain(sandbox) || !Array.isArray(binds)) return layer;
  const resolved = binds.map((bind: unknown) => {
    if (!isPlain(bind) || typeof bind.source !== "string") return bind;
    if (isAbsolute(bind.source)) return bind;
    return { ...bind, source: resolve(base, bind.source) };
  });
  return {
    ...layer,
    environment: { ...environment, sandbox: { ...sandbox, readOnlyBinds: resolved } },
  };
}

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * The only config fields where `${VAR}` references are resolved from the environment: the
 * provider's base URL. (`model.apiKeyEnv` names the key's variable, which only the gateway or
 * the mini agent reads.) Everywhere else, in command arguments, templates, sandbox env and
 * model parameters, `${VAR}` stays literal text, so a config cannot copy a secret into the
 * sandbox, a prompt or a file.
 */
export const CONFIG_ENV_FIELDS: readonly (readonly string[])[] = [["model", "baseUrl"]];

function resolveRefs(text: string, env: Record<string, string | undefined>, path: string): string {
  return text.replace(ENV_REF, (_match, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== "") return found;
    if (fallback !== undefined) return fallback;
    throw new DistDebugError({
      code: "MISSING_ENV",
      message: `environment variable ${name} is not set (needed by the config at ${path})`,
      data: { variable: name, path },
    });
  });
}

/**
 * Returns a copy of `value` with `${VAR}` (and `${VAR:-default}`) references replaced from
 * `env` in the fields of `CONFIG_ENV_FIELDS` only. Throws `MISSING_ENV` naming the first
 * variable that is not set. Use the result in memory only: never write it to disk.
 */
export function resolveConfigEnv<T>(
  value: T,
  env: Record<string, string | undefined> = process.env,
): T {
  if (!isPlain(value)) return value;
  const out: Plain = { ...value };
  for (const [section, field] of CONFIG_ENV_FIELDS) {
    if (section === undefined || field === undefined) continue;
    const parent = out[section];
    if (!isPlain(parent) || typeof parent[field] !== "string") continue;
    out[section] = { ...parent, [field]: resolveRefs(parent[field], env, `$.${section}.${field}`) };
  }
  return out as T;
}
