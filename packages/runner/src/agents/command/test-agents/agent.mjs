// A small `command` agent in Node used by the tests: it calls an OpenAI-compatible model
// through OPENAI_BASE_URL (the DistDebug gateway), writes diagnosis.json from the model's
// answer and a DistDebug trajectory whose own token count is deliberately wrong.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

function probe() {
  const parts = [`ENV ${JSON.stringify(process.env)}`];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      parts.push(
        `PROC ${pid} ${readFileSync(`/proc/${pid}/environ`, "utf8")} ${readFileSync(`/proc/${pid}/cmdline`, "utf8")}`,
      );
    } catch {}
  }
  const walk = (dir, depth) => {
    let names = [];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      try {
        const info = statSync(path);
        if (info.isDirectory() && depth < 8) walk(path, depth + 1);
        else if (info.isFile() && info.size < 1_000_000)
          parts.push(`FILE ${path} ${readFileSync(path, "utf8")}`);
      } catch {}
    }
  };
  for (const root of ["/task", "/workspace", "/output", "/tmp", "/run", "/opt", "/etc"])
    walk(root, 0);
  return parts.join("\n");
}

async function chat(content) {
  const response = await fetch(`${process.env.OPENAI_BASE_URL}/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${process.env.OPENAI_API_KEY}`,
    },
    body: JSON.stringify({ model: "anything", messages: [{ role: "user", content }] }),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  return (await response.json()).choices[0].message.content;
}

const task = JSON.parse(readFileSync("/task/task.json", "utf8"));
const first = await chat(`incident ${task.id}\n${probe()}`);
const second = await chat(`you said: ${first}; now give the diagnosis blocks as JSON`);
const output = process.env.DISTDEBUG_OUTPUT;
writeFileSync(
  join(output, "diagnosis.json"),
  JSON.stringify({
    format: "distdebug.diagnosis/1",
    incidentId: process.env.DISTDEBUG_INCIDENT_ID,
    blocks: JSON.parse(second),
  }),
);
const now = () => new Date().toISOString();
writeFileSync(
  join(output, "trajectory.json"),
  JSON.stringify({
    format: "distdebug.trajectory/1",
    agent: { name: "test-node-agent" },
    exitStatus: "submitted",
    usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0, calls: 1, costUsd: 0 },
    steps: [
      { type: "message", role: "assistant", content: first, at: now() },
      { type: "model-call", inputTokens: 1, outputTokens: 1 },
      { type: "message", role: "assistant", content: second, at: now() },
    ],
  }),
);
