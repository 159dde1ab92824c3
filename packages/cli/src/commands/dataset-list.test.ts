import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { catalogWithoutGold } from "../testing/catalog-copy.js";

describe("distdebug dataset list", () => {
  it("lists every incident with its facts", async () => {
    const io = captureIO();
    expect(await runCli(["dataset", "list", "examples/dataset"], io)).toBe(0);
    const lines = io.out().trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID +SYSTEM +LANGUAGES +CATEGORY +SCORED +TITLE$/);
    expect(lines).toHaveLength(13);
    expect(lines.find((line) => line.startsWith("taskq-219"))).toMatch(
      /^taskq-219 +taskq +python +error-handling +yes +Tasks run twice/,
    );
    expect(lines.at(-1)).toBe("11 of 11 incidents");
  });

  it("filters by id glob, system and language, also as JSON", async () => {
    const io = captureIO();
    const argv = [
      "dataset",
      "list",
      "examples/dataset",
      "--id",
      "*-1??",
      "--language",
      "scala",
      "--json",
    ];
    expect(await runCli(argv, io)).toBe(0);
    const result = JSON.parse(io.out());
    expect(result.incidents.map((entry: { id: string }) => entry.id)).toEqual(["streamlog-133"]);
    expect(result.incidents[0]).toMatchObject({
      system: "streamlog",
      category: "concurrency",
      scorable: true,
    });
    expect(result.digest).toMatch(/^[0-9a-f]{64}$/);

    const bySystem = captureIO();
    expect(
      await runCli(["dataset", "list", "examples/dataset", "--system", "zklite"], bySystem),
    ).toBe(0);
    expect(bySystem.out()).toContain("2 of 11 incidents");
  });

  it("rejects an unknown language and a glob that matches nothing", async () => {
    const io = captureIO();
    expect(await runCli(["dataset", "list", "examples/dataset", "--language", "cobol"], io)).toBe(
      2,
    );
    expect(io.err()).toContain("--language: expected one of java, go, rust, python, cpp, scala, c");
    const none = captureIO();
    expect(await runCli(["dataset", "list", "examples/dataset", "--id", "etcd-*"], none)).toBe(2);
    expect(none.err()).toContain('no incident of distdebug-examples matches "etcd-*"');
  });

  it("shows the catalog entries as scored, and a gold-less one as not scored", async () => {
    const io = captureIO();
    expect(await runCli(["dataset", "list", "datasets/catalog"], io)).toBe(0);
    expect(io.out()).toMatch(/zookeeper-2845 +zookeeper +java +logic +yes +A znode exists/);
    const copy = captureIO();
    expect(
      await runCli(["dataset", "list", await catalogWithoutGold("zookeeper-2845")], copy),
    ).toBe(0);
    expect(copy.out()).toMatch(/zookeeper-2845 +zookeeper +java +logic +no +A znode exists/);
  });
});
