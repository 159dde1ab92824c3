import { Job } from "kubernetes-models/batch/v1";
import { ConfigMap } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

const KEY = "sk-test-secret-value-0123456789";
const args = [
  "k8s",
  "job",
  "--config",
  "configs/mini-swe-agent/gpt-5.4.yaml",
  "--shards",
  "6",
  "--image",
  "registry.example/distdebug:0.1.0",
  "--parallelism",
  "3",
  "--bug",
  "zookeeper-*",
];

async function manifest(extra: string[] = []) {
  const io = captureIO({ env: { OPENAI_API_KEY: KEY } });
  expect(await runCli([...args, ...extra], io)).toBe(0);
  return { text: io.out(), documents: parseAllDocuments(io.out()).map((doc) => doc.toJSON()) };
}

describe("distdebug k8s job", () => {
  it("prints a ConfigMap and an Indexed Job that validate against the Kubernetes schemas", async () => {
    const { documents } = await manifest();
    expect(documents).toHaveLength(2);
    const [configMap, job] = documents;
    // The schemas of kubernetes-models (batch/v1 Job, v1 ConfigMap) accept both objects.
    expect(() => new ConfigMap(configMap).validate()).not.toThrow();
    expect(() => new Job(job).validate()).not.toThrow();
    expect(job.spec).toMatchObject({
      completionMode: "Indexed",
      completions: 6,
      parallelism: 3,
      backoffLimitPerIndex: 2,
    });
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe("Never");
    const [container] = pod.containers;
    expect(container.args).toEqual([
      "run",
      "--config",
      "/etc/distdebug/config.yaml",
      "--shard-count",
      "6",
      "--cache-dir",
      "/cache",
      "--json",
      "--bug",
      "zookeeper-*",
    ]);
    expect(container.securityContext).toEqual({ privileged: true, runAsUser: 0 });
    expect(container.resources.limits).toEqual({ cpu: "2", memory: "8Gi" });
    expect(pod.volumes.map((volume: { name: string }) => volume.name)).toEqual([
      "results",
      "cache",
      "config",
    ]);
    expect(configMap.data["config.yaml"]).toContain("name: mini-swe-agent-gpt-5.4");
  });

  it("takes the API key from a Secret and never writes its value", async () => {
    const { text, documents } = await manifest([
      "--secret",
      "model-keys",
      "--secret-key",
      "openai",
    ]);
    expect(text).not.toContain(KEY);
    const env = documents[1].spec.template.spec.containers[0].env;
    expect(env).toContainEqual({
      name: "OPENAI_API_KEY",
      valueFrom: { secretKeyRef: { name: "model-keys", key: "openai" } },
    });
    expect(JSON.stringify(env)).not.toMatch(/"value":"sk-/);
  });

  it("uses an emptyDir cache when --cache-claim is empty, and prints JSON with --json", async () => {
    const io = captureIO({ env: {} });
    expect(await runCli([...args, "--cache-claim", "", "--json"], io)).toBe(0);
    const list = JSON.parse(io.out());
    expect(list.kind).toBe("List");
    const volumes = list.items[1].spec.template.spec.volumes;
    expect(volumes[1]).toEqual({ name: "cache", emptyDir: {} });
  });

  it("asks for no API key Secret when the model is the mock model", async () => {
    const io = captureIO({ env: {} });
    const mockArgs = [...args.slice(0, 3), "configs/mock/mini.yaml", ...args.slice(4)];
    expect(await runCli([...mockArgs, "--json"], io)).toBe(0);
    const [container] = JSON.parse(io.out()).items[1].spec.template.spec.containers;
    expect(container.env).toEqual([{ name: "DISTDEBUG_CACHE_DIR", value: "/cache" }]);
    expect(io.out()).not.toMatch(/secretKeyRef|distdebug-model-key/);
  });

  it("is a usage error without --shards, --image or --config", async () => {
    const io = captureIO();
    expect(await runCli(["k8s", "job", "--config", "configs/baseline/default.yaml"], io)).toBe(2);
    expect(io.err()).toMatch(/--shards/);
  });
});
