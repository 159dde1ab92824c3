import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { loadConfig } from "@distdebug/schema";
import { stringify } from "yaml";
import {
  defineCommand,
  defined,
  optionalPositiveInt,
  optionalString,
  parsePositiveInt,
  requireString,
  stringList,
  usageError,
} from "../command.js";
import { buildJobManifest } from "../k8s/job-manifest.js";

export default defineCommand({
  usage:
    "k8s job --config <file> --shards N --image <ref> [--dataset <dir>] [--bug <id|glob>]... [--parallelism N] [--results-claim <pvc>] [--cache-claim <pvc>] [--secret <name>]",
  description:
    "Prints a Kubernetes manifest (YAML, or JSON with --json) for a full benchmark run: a ConfigMap holding the run config and a batch/v1 Indexed Job with one completion per shard. Each pod runs `distdebug run --shard-count N` with its shard taken from JOB_COMPLETION_INDEX, writes results/<config>.shard-<i>-of-<N> on the results volume, and resumes it when restarted. The API key is read from a Secret (never written into the manifest). Merge the shard folders with distdebug merge. See docs/guide/scale-out.md.",
  options: {
    config: { type: "string", description: "run config YAML (stored in the ConfigMap as written)" },
    shards: { type: "string", description: "number of shards (Job completions)" },
    image: { type: "string", description: "the runner image (see Dockerfile)" },
    dataset: { type: "string", description: "dataset folder inside the image (default: bundled)" },
    bug: { type: "string", multiple: true, description: "incident id or glob (repeatable)" },
    runs: { type: "string", description: "attempts per incident (default: the config's)" },
    parallelism: { type: "string", description: "pods at once (default: --shards)" },
    "backoff-limit-per-index": { type: "string", description: "retries per shard (default 2)" },
    name: { type: "string", description: "Job name (default distdebug-<config name>)" },
    namespace: { type: "string", description: "namespace of the objects" },
    secret: {
      type: "string",
      description: "Secret with the API key (default distdebug-model-key)",
    },
    "secret-key": { type: "string", description: "key inside the Secret (default api-key)" },
    "results-claim": {
      type: "string",
      description: "PersistentVolumeClaim for results (default distdebug-results)",
    },
    "cache-claim": {
      type: "string",
      description:
        "PersistentVolumeClaim for the repository cache; '' for an emptyDir (default distdebug-cache)",
    },
    cpu: { type: "string", description: "CPU request and limit per pod (default 2)" },
    memory: { type: "string", description: "memory request and limit per pod (default 8Gi)" },
  },
  async run(args, io) {
    if (args.positionals.length > 0)
      throw usageError(`unexpected argument ${JSON.stringify(args.positionals[0])}`);
    const file = resolve(io.cwd, requireString(args, "config"));
    const config = await loadConfig({ files: [file] });
    const configText = await readFile(file, "utf8");
    const text = (name: string) => optionalString(args, name);
    const number = (name: string) => optionalPositiveInt(args, name);
    const backoff = text("backoff-limit-per-index");
    const manifest = buildJobManifest({
      config,
      configText,
      shards: parsePositiveInt(requireString(args, "shards"), "shards", 1),
      image: requireString(args, "image"),
      bugs: stringList(args, "bug"),
      ...defined({
        parallelism: number("parallelism"),
        runs: number("runs"),
        backoffLimitPerIndex: backoff === undefined ? undefined : nonNegative(backoff),
        name: text("name"),
        namespace: text("namespace"),
        dataset: text("dataset"),
        secretName: text("secret"),
        secretKey: text("secret-key"),
        resultsClaim: text("results-claim"),
        cacheClaim: text("cache-claim"),
        cpu: text("cpu"),
        memory: text("memory"),
      }),
    });
    const objects = [manifest.configMap.toJSON(), manifest.job.toJSON()];
    if (args.values.json)
      io.stdout(`${JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }, null, 2)}\n`);
    else
      io.stdout(
        objects
          .map((object) => stringify(object, { blockQuote: "literal", lineWidth: 0 }))
          .join("---\n"),
      );
    return 0;
  },
});

function nonNegative(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0)
    throw usageError(
      `--backoff-limit-per-index: expected a whole number >= 0, found ${JSON.stringify(text)}`,
    );
  return value;
}
