import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { catalogWithoutGold } from "../testing/catalog-copy.js";

describe("distdebug dataset show", () => {
  it("shows the facts, artifacts and report, and no gold by default", async () => {
    const io = captureIO();
    expect(await runCli(["dataset", "show", "examples/dataset", "objstore-905"], io)).toBe(0);
    const out = io.out();
    expect(out).toMatch(/^objstore-905: Checksum mismatches/);
    expect(out).toContain("system       objstore (cpp)");
    expect(out).toContain("  logs/gateway-3.log (log: gateway stderr around the incident)");
    expect(out).toContain("## OBJ-905 Gateway reports checksum mismatches");
    expect(out).not.toContain("gold blocks");
    expect(out).not.toContain("fix commit");
  });

  it("adds the gold labels and the fix with --gold", async () => {
    const io = captureIO();
    expect(
      await runCli(["dataset", "show", "examples/dataset", "objstore-905", "--gold"], io),
    ).toBe(0);
    expect(io.out()).toMatch(/fix commit {3}[0-9a-f]{40}/);
    expect(io.out()).toContain("  src/rpc/rpc_client.cc:33-35");
    const json = captureIO();
    expect(
      await runCli(
        ["dataset", "show", "examples/dataset", "objstore-905", "--gold", "--json"],
        json,
      ),
    ).toBe(0);
    const result = JSON.parse(json.out());
    expect(result.gold.blocks).toHaveLength(2);
    expect(result.artifacts[0].content).toContain("replica_writer");
  });

  it("says when an incident cannot be scored", async () => {
    const io = captureIO();
    expect(
      await runCli(
        ["dataset", "show", await catalogWithoutGold("zookeeper-2845"), "zookeeper-2845", "--gold"],
        io,
      ),
    ).toBe(0);
    expect(io.out()).toContain(
      "scored       no (no gold.json: the diagnosis is recorded, not scored)",
    );
    expect(io.out()).toContain(
      "repository   https://github.com/apache/zookeeper @ f0b67b6e49acec5f022bee25e08f82a29572c97a",
    );
    expect(io.out()).toContain("gold         none");
  });

  it("names the incidents when the id is unknown", async () => {
    const io = captureIO();
    expect(await runCli(["dataset", "show", "examples/dataset", "zklite-1"], io)).toBe(2);
    expect(io.err()).toContain(
      'has no incident "zklite-1"; its incidents are zklite-142, zklite-188',
    );
  });
});
