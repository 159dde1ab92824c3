import { apiKeyEnvName, needsApiKey } from "@distdebug/agents";
import type { RunConfig } from "@distdebug/schema";
import { Job } from "kubernetes-models/batch/v1";
import { ConfigMap, type IVolume } from "kubernetes-models/v1";

/** Options of {@link buildJobManifest}; every default is stated. */
export interface JobManifestOptions {
  /** The run config as written (`${VAR}` references unresolved): it goes into a ConfigMap. */
  config: RunConfig;
  /** The config file's text, stored as is in the ConfigMap. */
  configText: string;
  /** Number of shards, one Job completion each. */
  shards: number;
  /** The runner image (see the repository's Dockerfile). */
  image: string;
  /** Pods at once. Default: `shards`. */
  parallelism?: number;
  /** Retries per shard (a retried pod resumes the shard's finished attempts). Default 2. */
  backoffLimitPerIndex?: number;
  /** The Job's name (also names the ConfigMap). Default `distdebug-<config name>`. */
  name?: string;
  namespace?: string;
  /** Dataset folder inside the image; default: the CLI's bundled datasets. */
  dataset?: string;
  /** `--bug` patterns passed to every shard. */
  bugs?: readonly string[];
  /** Attempts per incident. Default: the config's `run.attempts`. */
  runs?: number;
  /** The Secret holding the model API key. Default `distdebug-model-key`. */
  secretName?: string;
  /** The key inside that Secret. Default `api-key`. */
  secretKey?: string;
  /** PersistentVolumeClaim for results, one folder per shard. Default `distdebug-results`. */
  resultsClaim?: string;
  /** PersistentVolumeClaim for the repository cache; empty: an emptyDir per pod. Default `distdebug-cache`. */
  cacheClaim?: string;
  /** CPU request and limit per pod. Default `2`. */
  cpu?: string;
  /** Memory request and limit per pod. Default `8Gi`. */
  memory?: string;
}

/** The objects `distdebug k8s job` prints: the config's ConfigMap, then the Job. */
export interface JobManifest {
  configMap: ConfigMap;
  job: Job;
}

const WORK_DIR = "/data";
const CONFIG_DIR = "/etc/distdebug";
const CACHE_DIR = "/cache";

function kubeName(text: string): string {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 52)
    .replace(/-+$/, "");
  return name || "distdebug";
}

function runArgs(options: JobManifestOptions): string[] {
  const args = [
    "run",
    "--config",
    `${CONFIG_DIR}/config.yaml`,
    "--shard-count",
    String(options.shards),
  ];
  args.push("--cache-dir", CACHE_DIR, "--json");
  if (options.dataset) args.push("--dataset", options.dataset);
  for (const bug of options.bugs ?? []) args.push("--bug", bug);
  if (options.runs !== undefined) args.push("--runs", String(options.runs));
  return args;
}

function cacheVolume(claim: string): IVolume {
  return claim
    ? { name: "cache", persistentVolumeClaim: { claimName: claim } }
    : { name: "cache", emptyDir: {} };
}

/**
 * Builds a Kubernetes Indexed Job that runs one shard per completion: each pod runs
 * `distdebug run --shard-count N` and takes its shard from `JOB_COMPLETION_INDEX`, writing
 * `results/<config>.shard-<i>-of-<N>` on the results volume (a restarted pod resumes it).
 * The API key comes from a Secret reference, never from a value in the manifest. The pod
 * runs privileged as root because the sandbox (bubblewrap) creates pid, network, ipc and uts
 * namespaces, mounts a fresh /proc and tmpfs, and drops to an unprivileged uid per attempt.
 * Both objects are validated against the Kubernetes schemas (kubernetes-models).
 *
 * @example
 * ```ts
 * const { configMap, job } = buildJobManifest({ config, configText, shards: 8, image: "ghcr.io/me/distdebug:0.1.0" });
 * ```
 */
export function buildJobManifest(options: JobManifestOptions): JobManifest {
  const name = kubeName(options.name ?? `distdebug-${options.config.name ?? "run"}`);
  const metadata = { name, ...(options.namespace ? { namespace: options.namespace } : {}) };
  const labels = { "app.kubernetes.io/name": "distdebug", "app.kubernetes.io/instance": name };
  const configMap = new ConfigMap({
    metadata: { ...metadata, name: `${name}-config`, labels },
    data: { "config.yaml": options.configText },
  });
  const model = options.config.model;
  const keyName = model && needsApiKey(model) ? apiKeyEnvName(model) : undefined;
  const env = keyName
    ? [
        {
          name: keyName,
          valueFrom: {
            secretKeyRef: {
              name: options.secretName ?? "distdebug-model-key",
              key: options.secretKey ?? "api-key",
            },
          },
        },
      ]
    : [];
  const resources = { cpu: options.cpu ?? "2", memory: options.memory ?? "8Gi" };
  const job = new Job({
    metadata: { ...metadata, labels },
    spec: {
      completionMode: "Indexed",
      completions: options.shards,
      parallelism: options.parallelism ?? options.shards,
      backoffLimitPerIndex: options.backoffLimitPerIndex ?? 2,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: "Never",
          containers: [
            {
              name: "distdebug",
              image: options.image,
              args: runArgs(options),
              workingDir: WORK_DIR,
              env: [...env, { name: "DISTDEBUG_CACHE_DIR", value: CACHE_DIR }],
              resources: { requests: resources, limits: resources },
              securityContext: { privileged: true, runAsUser: 0 },
              volumeMounts: [
                { name: "results", mountPath: `${WORK_DIR}/results` },
                { name: "cache", mountPath: CACHE_DIR },
                { name: "config", mountPath: CONFIG_DIR, readOnly: true },
              ],
            },
          ],
          volumes: [
            {
              name: "results",
              persistentVolumeClaim: { claimName: options.resultsClaim ?? "distdebug-results" },
            },
            cacheVolume(options.cacheClaim ?? "distdebug-cache"),
            { name: "config", configMap: { name: `${name}-config` } },
          ],
        },
      },
    },
  });
  configMap.validate();
  job.validate();
  return { configMap, job };
}
