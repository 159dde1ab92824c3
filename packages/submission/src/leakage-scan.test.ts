import { describe, expect, it } from "vitest";
import { scanCommand, scanTrajectory } from "./leakage-scan.js";

describe("scanCommand", () => {
  it.each([
    [
      "cd /workspace && git log --all --oneline",
      "history",
      "git log --all reads history beyond the one commit",
    ],
    [
      "git --no-pager log --reflog",
      "history",
      "git log --reflog reads history beyond the one commit",
    ],
    ["git reflog", "history", "git reflog reads earlier states of the repository"],
    [
      "git show 3f2a9c1",
      "history",
      "git show of another revision reads history beyond the one commit",
    ],
    [
      "git show HEAD~1:src/a.go",
      "history",
      "git show of another revision reads history beyond the one commit",
    ],
    [
      "git cat-file -p 3f2a9c1",
      "history",
      "git cat-file reads raw objects, possibly of other commits",
    ],
    ["ls .git/objects/pack", "history", "reading .git internals digs up history"],
    [
      "curl -s https://issues.apache.org/jira/browse/ZOOKEEPER-2845",
      "network",
      "curl reaches the network",
    ],
    ["timeout 5 wget example.org", "network", "wget reaches the network"],
    [
      "git clone https://github.com/apache/zookeeper /tmp/zk",
      "network",
      "git clone reaches a remote repository",
    ],
    ["pip install requests", "network", "pip install downloads packages"],
    [
      "python3 -c 'import urllib.request; urllib.request.urlopen(\"http://x\")'",
      "network",
      "python3 code that opens network connections",
    ],
    ["exec 3<>/dev/tcp/10.0.0.1/80", "network", "/dev/tcp opens a network connection"],
    [
      "cat <<EOF > /tmp/x\nhello\nEOF\ncat /etc/shadow",
      "outside-workspace",
      "reads /etc/shadow, outside /workspace, /task, /output and /tmp",
    ],
    [
      "grep -rn secret /home/user",
      "outside-workspace",
      "reads /home/user, outside /workspace, /task, /output and /tmp",
    ],
    [
      "cat /etc/shadow",
      "outside-workspace",
      "reads /etc/shadow, outside /workspace, /task, /output and /tmp",
    ],
    [
      "ls /home/user/results",
      "outside-workspace",
      "reads /home/user/results, outside /workspace, /task, /output and /tmp",
    ],
    [
      "cat /workspace/../root/.bash_history",
      "outside-workspace",
      "reads /root/.bash_history, outside /workspace, /task, /output and /tmp",
    ],
  ])("flags %s", (command, kind, rule) => {
    expect(scanCommand(command)).toContainEqual({ kind, rule });
  });

  it.each([
    "git log --oneline -5",
    "git show HEAD --stat",
    "git status && git diff",
    "grep -rn 'https://example.org' /workspace/src",
    "cat /task/report.md | head -50",
    "sed -n 1,80p /workspace/src/main/java/Server.java > /tmp/out.txt 2>/dev/null",
    "/usr/bin/python3 /tmp/script.py",
    "ls /opt/java/bin",
    "cat > /output/diagnosis.json <<'EOF'\n{}\nEOF",
    "echo done",
    "grep -rn '/api/v1/sessions' /workspace/src",
    "sed -n '/^func/,/^}/p' /workspace/raft.go",
    "echo /etc/hosts is not read",
    'cat > /output/diagnosis.json <<EOF\n{"blocks":[{"path":"/src/main/Foo.java"}]}\nEOF\nls /workspace',
  ])("lets %s pass", (command) => {
    expect(scanCommand(command)).toEqual([]);
  });
});

describe("scanTrajectory", () => {
  it("names the incident, attempt and step of each flagged command, and skips messages", () => {
    const findings = scanTrajectory(
      {
        steps: [
          { type: "message", role: "assistant", content: "I will not run git log --all" },
          { type: "command", command: "ls /workspace", exitCode: 0, output: "" },
          { type: "command", command: "git log --all", exitCode: 0, output: "" },
        ],
      },
      { incidentId: "zklite-142", attempt: 2 },
    );
    expect(findings).toEqual([
      {
        incidentId: "zklite-142",
        attempt: 2,
        step: 2,
        kind: "history",
        rule: "git log --all reads history beyond the one commit",
        command: "git log --all",
      },
    ]);
  });
});
