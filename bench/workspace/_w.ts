import { execFileSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { prepareWorkspace } from "@distdebug/workspace";
import { walkTree } from "../../packages/workspace/src/internal/copy-tree.js";

const base = "/tmp/distdebug-bench-workspace/1200";
const c = JSON.parse(
  await import("node:fs/promises").then((f) => f.readFile(`${base}/commits.json`, "utf8")),
);
const root = `${base}/cache/workspaces/`;
const entry = readdirSync(root).find((n) => !n.endsWith(".lock"))!;
const src = root + entry + "/tree";
for (let i = 0; i < 4; i++) {
  for (const d of ["c1", "c2", "c3"]) rmSync(`/tmp/wsx/${d}`, { recursive: true, force: true });
  let t0 = performance.now();
  execFileSync("cp", ["-a", src, "/tmp/wsx/c1"]);
  const cp = performance.now() - t0;
  t0 = performance.now();
  await walkTree(src, { target: "/tmp/wsx/c2" });
  const mine = performance.now() - t0;
  t0 = performance.now();
  const r = await prepareWorkspace({
    source: `${base}/source.git`,
    commit: c.buggy,
    dir: "/tmp/wsx/c3",
    needles: ["ISSUE-4242"],
    cacheDir: `${base}/cache`,
  });
  const warm = performance.now() - t0;
  console.log(
    `cp -a ${cp.toFixed(0)}  walkTree ${mine.toFixed(0)}  warm ${warm.toFixed(0)} (copy ${r.timings.copyMs.toFixed(0)}) hit=${r.cacheHit}`,
  );
}
