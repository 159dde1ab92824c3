import { describe, expect, it } from "vitest";
import { type ArtifactText, checkArtifacts, type SourceTree } from "./artifact-check.js";

const FILES: Record<string, string> = {
  "server/src/main/java/org/example/quorum/Learner.java": [
    "package org.example.quorum;",
    "",
    "public class Learner {",
    "    void syncWithLeader(long zxid) throws Exception {",
    '        LOG.info("Getting a diff from the leader 0x{}", Long.toHexString(zxid));',
    "        readPacket();",
    "    }",
    "",
    "    private class Handler implements Runnable {",
    "        public void run() {",
    "            syncWithLeader(0);",
    "        }",
    "    }",
    "}",
  ].join("\n"),
  "core/src/main/scala/org/example/log/UnifiedLog.scala": [
    "package org.example.log",
    "",
    "class UnifiedLog {",
    "  def truncateTo(targetOffset: Long): Unit = {",
    '    info(s"Truncating to offset $targetOffset with ${segments.size} segments")',
    "  }",
    "}",
  ].join("\n"),
  "distributed/worker.py": [
    "import logging",
    "",
    "def gather_dep(self, worker, keys):",
    '    logger.warning("Could not find data %s on worker %r", keys, worker)',
    "    raise KeyError(keys)",
  ].join("\n"),
  "components/raftstore/src/store/peer.rs": [
    "fn on_apply(&mut self) {",
    '    info!("apply snapshot failed"; "region_id" => self.region_id);',
    '    panic!("{} unexpected state {:?}", self.tag, state);',
    "}",
  ].join("\n"),
  "src/replication.c": [
    "void replicationCron(void) {",
    '    serverLog(LL_WARNING, "MASTER timeout: no data nor PING received...");',
    "    serverLog(LL_WARNING, \"==> %s:%d '%s' is not true\", file, line, estr);",
    "    syncWithMaster(NULL);",
    "}",
  ].join("\n"),
};

const tree: SourceTree = {
  paths: Object.keys(FILES),
  read: async (path) => FILES[path],
};

async function check(text: string, kind: ArtifactText["kind"] = "log") {
  return checkArtifacts({ artifacts: [{ path: "logs/a.log", kind, text }], tree });
}

describe("checkArtifacts", () => {
  it("accepts Java frames and log4j lines the code has, and skips JDK frames", async () => {
    const result = await check(
      [
        "2023-01-01 10:00:00,123 [myid:1] - INFO  [QuorumPeer:Learner@5] - Getting a diff from the leader 0x100000004",
        "java.io.EOFException",
        "\tat java.base/java.io.DataInputStream.readInt(DataInputStream.java:397)",
        "\tat org.example.quorum.Learner.syncWithLeader(Learner.java:6) ~[server.jar:1.0]",
        "\tat org.example.quorum.Learner$Handler.run(Learner.java:11)",
        "\tat org.example.quorum.Learner$Handler.run(Learner.java:9)",
      ].join("\n"),
    );
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ framesChecked: 3, framesExternal: 1, logLinesChecked: 1 });
  });

  it("refuses a Java frame of a project class that does not exist, or a line the method does not reach", async () => {
    const result = await check(
      [
        "\tat org.example.quorum.Follower.followLeader(Follower.java:12)",
        "\tat org.example.quorum.Learner.syncWithLeader(Learner.java:2)",
      ].join("\n"),
      "stack-trace",
    );
    expect(result.problems).toEqual([
      expect.stringMatching(/a\.log:1: frame .*no file org\/example\/quorum\/Follower\.java/),
      expect.stringMatching(/a\.log:2: frame .*line 2 is blank/),
    ]);
  });

  it("reads Scala interpolation, Python %-formats and TiKV's bracketed records as placeholders", async () => {
    const result = await check(
      [
        "[2023-05-01 10:00:00,000] INFO [UnifiedLog partition=t-0] Truncating to offset 1843270 with 12 segments (org.example.log.UnifiedLog)",
        "distributed.worker - WARNING - Could not find data ('x-1',) on worker 'tcp://10.0.0.1:4000'",
        '[2024/11/14 01:40:44.469 +00:00] [INFO] [peer.rs:2] ["apply snapshot failed"] [region_id=7]',
        "12345:M 01 Jan 2024 10:00:00.000 # MASTER timeout: no data nor PING received...",
      ].join("\n"),
    );
    expect(result.problems).toEqual([]);
    expect(result.logLinesChecked).toBe(4);
  });

  it("explains a format with little constant text when it prints the whole message", async () => {
    const good = await check(
      "18203:M 16 Aug 2022 22:08:31.442 # ==> blocked.c:624 'numops == 0' is not true",
    );
    expect(good.problems).toEqual([]);
    const bad = await check("18203:M 16 Aug 2022 22:08:31.442 # the check is not true at all");
    expect(bad.problems).toHaveLength(1);
  });

  it("names a log line that no literal prints", async () => {
    const result = await check(
      "2023-01-01 10:00:00,123 - ERROR - Lost the lease of the leader on epoch 7",
    );
    expect(result.problems).toEqual([
      expect.stringMatching(/a\.log:1: no string literal .* prints ".*Lost the lease/),
    ]);
  });

  it("checks Python tracebacks, Rust backtraces and panics, gdb and symbolized C frames", async () => {
    const good = await check(
      [
        "Traceback (most recent call last):",
        '  File "/usr/lib/python3.11/asyncio/tasks.py", line 100, in wait',
        '  File "/opt/venv/lib/python3.11/site-packages/distributed/worker.py", line 5, in gather_dep',
        "thread 'raftstore-1' panicked at components/raftstore/src/store/peer.rs:3:5:",
        "   3: raftstore::store::peer::Peer::on_apply",
        "             at ./components/raftstore/src/store/peer.rs:2:9",
        "   4: raftstore::store::peer::Peer::on_apply",
        "             at /home/jenkins/go/src/github.com/pingcap/tikv/components/raftstore/src/store/peer.rs:2:9",
        "#2  0x000055 in replicationCron () at src/replication.c:3",
        "redis-server *:6379(syncWithMaster+0x2d)[0x55a1c2]",
        "/lib/x86_64-linux-gnu/libc.so.6(__libc_start_main+0xe7)[0x7f21c4b2bc87]",
        "redis-server *:6379(_start+0x2a)[0x44024a]",
      ].join("\n"),
      "stack-trace",
    );
    expect(good.problems).toEqual([]);
    expect(good).toMatchObject({ framesChecked: 6, framesExternal: 3 });
    const bad = await check(
      [
        '  File "/opt/venv/lib/python3.11/site-packages/distributed/worker.py", line 9, in gather_dep',
        "#2  0x000055 in syncWithMaster () at src/replication.c:2",
        "redis-server *:6379(freeClientAsync+0x2d)[0x55a1c2]",
      ].join("\n"),
      "stack-trace",
    );
    expect(bad.problems).toEqual([
      expect.stringMatching(/:1: frame .*line 9 is past the file's 5 lines/),
      expect.stringMatching(/:2: frame .*no syncWithMaster at or before line 2/),
      expect.stringMatching(/:3: frame .*no function freeClientAsync in the repository/),
    ]);
  });

  it("checks the absolute build paths addr2line prints, and skips system headers", async () => {
    const good = await check(
      [
        "/__w/redis/redis/src/replication.c:4",
        "/usr/include/c++/12/bits/shared_ptr_base.h:1071",
      ].join("\n"),
      "stack-trace",
    );
    expect(good.problems).toEqual([]);
    expect(good).toMatchObject({ framesChecked: 1, framesExternal: 1 });
    const bad = await check("/__w/redis/redis/src/replication.c:9", "stack-trace");
    expect(bad.problems).toEqual([
      expect.stringMatching(/:1: frame .*line 9 is past the file's 5 lines/),
    ]);
  });

  it("checks only real frames in a tool's output (kind other), never its log lines", async () => {
    const result = await check(
      [
        "I0409 10:00:00.000000 1 status.go:89] Hit conflict issue, getting latest version",
        "\tat org.example.quorum.Learner.syncWithLeader(Learner.java:99)",
      ].join("\n"),
      "other",
    );
    expect(result.problems).toEqual([expect.stringMatching(/:2: frame .*line 99 is past/)]);
    expect(result.logLinesChecked).toBe(0);
  });
});
