import { readFileSync } from "node:fs";
import { DistDebugError, errorMessage, type ModelConfig } from "@distdebug/schema";
import { parse as parseYaml } from "yaml";
import { SUBMIT_SENTINEL } from "../mini/templates.js";

/** One scripted reply: the assistant's text as is, or a shell command with a thought. */
export type MockReply = string | { command: string; thought?: string };

/** A scripted model: answers a Chat Completions request body with a Chat Completions reply. */
export interface MockModel {
  /**
   * The reply to a request (`messages`, optional `tools`). Stateless: the step is the number
   * of assistant messages in the request, so one mock serves any number of conversations.
   */
  reply(request: Record<string, unknown>): MockCompletion;
}

/** The OpenAI Chat Completions body a {@link MockModel} answers with. */
export interface MockCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: {
    index: number;
    finish_reason: "stop" | "tool_calls";
    message: {
      role: "assistant";
      content: string;
      tool_calls?: {
        id: string;
        type: "function";
        function: { name: string; arguments: string };
      }[];
    };
  }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

interface WireMessage {
  role?: unknown;
  content?: unknown;
}

const textOf = (message: WireMessage | undefined): string => {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((part) => (typeof part === "object" && part && "text" in part ? String(part.text) : ""))
      .join("");
  return "";
};

/** A command's output: mini-swe-agent 2 sends `{"returncode": 0, "output": "..."}`. */
function observationText(text: string): string {
  if (!text.trimStart().startsWith("{")) return text;
  try {
    const parsed: unknown = JSON.parse(text);
    const output = (parsed as { output?: unknown } | null)?.output;
    return typeof output === "string" ? output : text;
  } catch {
    return text;
  }
}

/** Words of the template and diagnosis format, never searched for. */
const TEMPLATE_WORDS = new Set([
  "incidentId",
  "startLine",
  "endLine",
  "diagnosis",
  "workspace",
  "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
]);

/** Identifier-like words of the report (camelCase, snake_case, dotted names), most specific first. */
export function reportWords(report: string): string[] {
  const words = report.match(/[A-Za-z_][A-Za-z0-9_]{3,}/g) ?? [];
  const identifier = (word: string) =>
    /[a-z][A-Z]/.test(word) || (word.includes("_") && /[a-z]/.test(word));
  const seen = new Set<string>();
  for (const word of words)
    if (identifier(word) && !TEMPLATE_WORDS.has(word) && !/^[A-Z_]+$/.test(word)) seen.add(word);
  const found = [...seen];
  if (found.length > 0) return found.slice(0, 4);
  return [...new Set(words.filter((word) => word.length >= 8))].slice(0, 3);
}

/** The first `path:line:` hit of a `grep -rn` output, path relative to the workspace. */
function firstHit(observations: readonly string[]): { path: string; line: number } | undefined {
  for (const text of observations)
    for (const line of text.split("\n")) {
      const match = /^(?:\.\/)?([^\s:][^:]*):(\d+):/.exec(line.trim());
      if (match?.[1] && !match[1].startsWith("/"))
        return { path: match[1], line: Number(match[2]) };
    }
  return undefined;
}

/** The first regular file named in a `find` listing. */
function firstFile(observations: readonly string[]): string | undefined {
  for (const text of observations)
    for (const line of text.split("\n")) {
      const match = /^\.\/(\S+\.[A-Za-z0-9]+)$/.exec(line.trim());
      if (match?.[1]) return match[1];
    }
  return undefined;
}

const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** The diagnosis command: the id read from /task/task.json, one block around the hit. */
function diagnosisCommand(outputDir: string, path: string, line: number): string {
  const block = {
    path,
    startLine: Math.max(1, line - 2),
    endLine: line + 2,
    reason: "the scripted mock model names the first match of the report's words",
  };
  const json = `{"format": "distdebug.diagnosis/1", "incidentId": "$id", "blocks": [${JSON.stringify(block)}], "summary": "A dry run with the mock model: not a real diagnosis."}`;
  return `id=$(sed -n 's/^ *"id": *"\\([^"]*\\)".*/\\1/p' /task/task.json | head -n 1); cat > ${outputDir}/diagnosis.json <<EOF\n${json}\nEOF`;
}

/**
 * The built-in script: `ls`, `grep -rn` on the report's words, `cat -n | sed -n` around the
 * first hit, a diagnosis naming those lines, then the submit command.
 */
function builtinStep(messages: readonly WireMessage[], step: number): MockReply {
  const users = messages.filter((message) => message.role !== "assistant");
  const task = textOf(users.find((message) => message.role === "user"));
  const report = /<incident_report>([\s\S]*?)<\/incident_report>/.exec(task)?.[1] ?? task;
  const outputDir = /(\/[\w/.-]+)\/diagnosis\.json/.exec(task)?.[1] ?? "/output";
  const observations = messages
    .slice(messages.indexOf(users.find((message) => message.role === "user") ?? {}) + 1)
    .filter((message) => message.role === "user" || message.role === "tool")
    .map((message) => observationText(textOf(message)));
  const words = reportWords(report);
  const hit = firstHit(observations);
  const file = firstFile(observations);
  switch (step) {
    case 0:
      return { thought: "Look at the repository's layout first.", command: "ls" };
    case 1:
      return words.length > 0
        ? {
            thought: `Search the code for names the report mentions: ${words.join(", ")}.`,
            command: `grep -rnI -E ${shellQuote(words.join("|"))} . | grep -v -E '^./(.git/|.*.(md|txt|log):)' | head -n 20`,
          }
        : {
            thought: "The report names no identifiers: list the files.",
            command: "find . -type f | grep -v '^./.git/' | head -n 20",
          };
    case 2: {
      const target = hit ?? (file ? { path: file, line: 1 } : undefined);
      if (!target)
        return {
          thought: "Nothing matched: list the files.",
          command: "find . -type f | grep -v '^./.git/' | head -n 20",
        };
      const from = Math.max(1, target.line - 10);
      return {
        thought: `Read the code around ${target.path}:${target.line}.`,
        command: `cat -n ${shellQuote(target.path)} | sed -n '${from},${target.line + 10}p'`,
      };
    }
    case 3: {
      const target = hit ?? (file ? { path: file, line: 1 } : { path: "README.md", line: 1 });
      return {
        thought: `The failure likely starts at ${target.path}:${target.line}; write the diagnosis.`,
        command: diagnosisCommand(outputDir, target.path, target.line),
      };
    }
    default:
      return { thought: "Submit the diagnosis.", command: `echo ${SUBMIT_SENTINEL}` };
  }
}

/** The text of a reply for an agent that reads one ```bash block from the text. */
function replyText(reply: MockReply): string {
  if (typeof reply === "string") return reply;
  return `THOUGHT: ${reply.thought ?? "Run the next command."}\n\n\`\`\`bash\n${reply.command}\n\`\`\``;
}

/** The command of a reply for an agent that offers a `bash` tool (mini-swe-agent 2). */
function replyCommand(reply: MockReply): string | undefined {
  if (typeof reply !== "string") return reply.command;
  return /```(?:bash|sh)?\n([\s\S]*?)\n```/.exec(reply)?.[1];
}

const tokenEstimate = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** Does the request offer a function tool named `bash`? */
function offersBashTool(request: Record<string, unknown>): boolean {
  const tools = request.tools;
  return (
    Array.isArray(tools) &&
    tools.some(
      (tool) =>
        typeof tool === "object" &&
        tool !== null &&
        (tool as { function?: { name?: unknown } }).function?.name === "bash",
    )
  );
}

/** A Chat Completions body for one reply: a tool call when the request offers `bash`. */
function completionOf(
  reply: MockReply,
  request: Record<string, unknown>,
  model: string,
  step: number,
): MockCompletion {
  const command = offersBashTool(request) ? replyCommand(reply) : undefined;
  const content =
    command === undefined
      ? replyText(reply)
      : typeof reply === "string"
        ? reply
        : (reply.thought ?? "");
  const prompt = JSON.stringify(request.messages ?? []);
  return {
    id: `chatcmpl-mock-${step}`,
    object: "chat.completion",
    created: 0,
    model,
    choices: [
      {
        index: 0,
        finish_reason: command === undefined ? "stop" : "tool_calls",
        message: {
          role: "assistant",
          content,
          ...(command === undefined
            ? {}
            : {
                tool_calls: [
                  {
                    id: `call_mock_${step}`,
                    type: "function" as const,
                    function: { name: "bash", arguments: JSON.stringify({ command }) },
                  },
                ],
              }),
        },
      },
    ],
    usage: {
      prompt_tokens: tokenEstimate(prompt),
      completion_tokens: tokenEstimate(content + (command ?? "")),
      total_tokens: tokenEstimate(prompt) + tokenEstimate(content + (command ?? "")),
    },
  };
}

/**
 * A scripted model for dry runs (`model.provider: mock`): step N answers with the script's
 * Nth reply (past its end, the submit command), or without a script with the built-in one,
 * which runs `ls`, `grep -rn` on the report's words, `cat -n` around the first hit, writes a
 * diagnosis naming those lines and submits. Token counts are estimates (4 characters a token).
 *
 * @example
 * ```ts
 * const mock = createMockModel({ name: "mock" });
 * const body = mock.reply({ messages: [{ role: "user", content: "<incident_report>fooBar fails</incident_report>" }] });
 * console.log(body.choices[0]?.message.content); // THOUGHT: ... ```bash\nls\n```
 * ```
 */
export function createMockModel(options: {
  name: string;
  script?: readonly MockReply[];
}): MockModel {
  return {
    reply(request) {
      const messages = (Array.isArray(request.messages) ? request.messages : []) as WireMessage[];
      const step = messages.filter((message) => message.role === "assistant").length;
      const scripted = options.script
        ? (options.script[step] ?? {
            thought: "The script is done.",
            command: `echo ${SUBMIT_SENTINEL}`,
          })
        : builtinStep(messages, step);
      return completionOf(scripted, request, options.name, step);
    },
  };
}

function invalidScript(file: string, message: string, cause?: unknown): DistDebugError {
  return new DistDebugError({
    code: "INVALID_CONFIG",
    message: `${file}: ${message}`,
    data: { path: file },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Checks one parsed script entry; returns it or throws naming the index. */
function scriptEntry(file: string, entry: unknown, index: number): MockReply {
  if (typeof entry === "string") return entry;
  if (typeof entry === "object" && entry !== null && !Array.isArray(entry)) {
    const { command, thought, ...rest } = entry as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (
      typeof command === "string" &&
      (thought === undefined || typeof thought === "string") &&
      extra.length === 0
    )
      return thought === undefined ? { command } : { command, thought };
  }
  throw invalidScript(
    file,
    `[${index}]: expected the reply's text or {command, thought}, found ${JSON.stringify(entry)?.slice(0, 80)}`,
  );
}

/**
 * Reads a mock model's script: a YAML or JSON list whose entries are the assistant's text or
 * `{command, thought}`. Throws `INVALID_CONFIG` naming the file and the entry.
 *
 * @example
 * ```ts
 * const script = readMockScript("configs/mock/scripts/replies.yaml"); // [{ command: "ls" }, ...]
 * ```
 */
export function readMockScript(file: string): MockReply[] {
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, "utf8"));
  } catch (error) {
    throw invalidScript(file, `cannot read the mock model's script: ${errorMessage(error)}`, error);
  }
  if (!Array.isArray(parsed))
    throw invalidScript(file, "expected a list of replies (YAML or JSON)");
  return parsed.map((entry, index) => scriptEntry(file, entry, index));
}

/** The wire protocol of a provider: the mock model speaks OpenAI Chat Completions. */
export function wireProtocol(provider: ModelConfig["provider"]): "openai" | "anthropic" {
  return provider === "anthropic" ? "anthropic" : "openai";
}

/** The mock model a config names (its script read now), or undefined for a real provider. */
export function mockModelFor(model: ModelConfig | undefined): MockModel | undefined {
  if (model?.provider !== "mock") return undefined;
  return createMockModel({
    name: model.name,
    ...(model.script === undefined ? {} : { script: readMockScript(model.script) }),
  });
}
