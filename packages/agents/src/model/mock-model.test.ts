import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { createMockModel, readMockScript, reportWords } from "./mock-model.js";

const task = {
  role: "user",
  content:
    "<incident_report>The LeaseRevoker drops keys; see lease_expired events</incident_report>\nWrite /output/diagnosis.json",
};

describe("the mock model", () => {
  it("answers a text agent with one ```bash block per step, the step counted from the conversation", () => {
    const mock = createMockModel({ name: "mock" });
    const first = mock.reply({ messages: [{ role: "system", content: "s" }, task] });
    expect(first.choices[0]?.message.content).toMatch(/```bash\nls\n```$/);
    const second = mock.reply({
      messages: [task, { role: "assistant", content: "x" }, { role: "user", content: "a\nb" }],
    });
    expect(second.choices[0]?.message.content).toContain(
      "grep -rnI -E 'LeaseRevoker|lease_expired'",
    );
    expect(second.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it("answers an agent that offers a bash tool with a tool call, and reads the grep hit from a tool message", () => {
    const mock = createMockModel({ name: "mock" });
    const tools = [{ type: "function", function: { name: "bash", parameters: {} } }];
    const messages = [
      task,
      { role: "assistant", content: "" },
      { role: "tool", content: "a.go" },
      { role: "assistant", content: "" },
      {
        role: "tool",
        content: JSON.stringify({
          returncode: 0,
          output: "./lease/revoke.go:42:func LeaseRevoker() {\n",
        }),
      },
    ];
    const body = mock.reply({ messages, tools });
    expect(body.choices[0]?.finish_reason).toBe("tool_calls");
    const call = body.choices[0]?.message.tool_calls?.[0];
    expect(JSON.parse(call?.function.arguments ?? "{}")).toEqual({
      command: "cat -n 'lease/revoke.go' | sed -n '32,52p'",
    });
    const write = mock.reply({
      messages: [...messages, { role: "assistant", content: "" }],
      tools,
    });
    const command = JSON.parse(
      write.choices[0]?.message.tool_calls?.[0]?.function.arguments ?? "{}",
    ).command;
    expect(command).toContain('"path":"lease/revoke.go","startLine":40,"endLine":44');
    expect(command).toContain("cat > /output/diagnosis.json");
  });

  it("scripted: replies in order, then submits; a bad entry names the file and index", async () => {
    const dir = await testdir();
    const file = join(dir, "r.yaml");
    await writeFile(file, "- command: ls\n- plain text\n");
    const mock = createMockModel({ name: "m", script: readMockScript(file) });
    const at = (step: number) =>
      mock.reply({
        messages: Array.from({ length: step }, () => ({ role: "assistant", content: "" })),
      }).choices[0]?.message.content;
    expect(at(0)).toContain("```bash\nls\n```");
    expect(at(1)).toBe("plain text");
    expect(at(2)).toContain("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT");
    await writeFile(file, "{a: 1}\n");
    expect(() => readMockScript(file)).toThrow(`${file}: expected a list of replies`);
  });

  it("takes identifiers from the report, not prose", () => {
    expect(reportWords("The fooBar and baz_qux fail; incidentId startLine")).toEqual([
      "fooBar",
      "baz_qux",
    ]);
  });
});
