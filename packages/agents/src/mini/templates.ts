import { DistDebugError } from "@distdebug/schema";

/** The line that ends a `mini` attempt when a command prints it first. */
export const SUBMIT_SENTINEL = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";

/** Variables the `mini` templates may use as `{{name}}`. */
export const TEMPLATE_VARIABLES = [
  "incident_id",
  "title",
  "system",
  "languages",
  "report",
  "artifacts",
  "task_dir",
  "workspace",
  "output_dir",
  "submit_sentinel",
  "step_limit",
  "cost_limit",
  "wall_time_limit_sec",
  "command_timeout_sec",
  "observation_chars",
  "actions",
] as const;
/** A template variable name. */
export type TemplateVariable = (typeof TEMPLATE_VARIABLES)[number];

/** The default system message (overridden by `agent.systemTemplate`). */
export const DEFAULT_SYSTEM_TEMPLATE = `You are a helpful assistant that can interact with a computer shell to find the code that caused a failure of a distributed system.

Your response must contain exactly ONE bash code block with ONE command (or commands connected with && or ||).
Include a THOUGHT section before your command where you explain your reasoning.
Format your response as shown in <format_example>.

<format_example>
THOUGHT: Your reasoning and analysis here

\`\`\`bash
your_command_here
\`\`\`
</format_example>

Failure to follow these rules will cause your response to be rejected.`;

/** The default first user message (overridden by `agent.instanceTemplate`). */
export const DEFAULT_INSTANCE_TEMPLATE = `<incident_report>
{{report}}
</incident_report>

<instructions>
# Task
A failure of {{system}} was reported (incident {{incident_id}}: {{title}}). Find the code that caused it: the causal code blocks of the repository at the buggy revision. You do not need to fix it.

- The repository ({{languages}}) is at {{workspace}}, your working directory.
- The report is {{task_dir}}/report.md. Artifacts (logs, stack traces), relative to {{task_dir}}:
{{artifacts}}
- Each command runs in a fresh shell in a sandbox without network: cd and variables do not persist between commands. A command is killed after {{command_timeout_sec}} s; output past {{observation_chars}} characters is cut in the middle.
- You have at most {{step_limit}} steps (0 means no limit) and {{wall_time_limit_sec}} s.

# Submission
Write your diagnosis as JSON to {{output_dir}}/diagnosis.json, for example with a heredoc:
{"format": "distdebug.diagnosis/1", "incidentId": "{{incident_id}}", "blocks": [{"path": "src/server/Session.java", "startLine": 120, "endLine": 140, "reason": "why this code causes the failure"}], "summary": "one paragraph"}
Paths are relative to {{workspace}}; lines are 1-based and inclusive. A block may name a "symbol" (for example "SessionTracker.expire") instead of lines. Name only code you believe is causal: precision is scored too.
Then submit, in a separate step, with exactly this command and nothing else:

\`\`\`bash
echo {{submit_sentinel}}
\`\`\`

You cannot continue working after submitting.
</instructions>`;

/** The default reply to a response without exactly one bash block (`agent.formatErrorTemplate`). */
export const DEFAULT_FORMAT_ERROR_TEMPLATE = `Please always provide EXACTLY ONE action in triple backticks, found {{actions}} actions.

Please format your action in triple backticks as shown in <response_example>.

<response_example>
Here are some thoughts about why you want to perform the action.

\`\`\`bash
<action>
\`\`\`
</response_example>

If you have completed your assignment, write {{output_dir}}/diagnosis.json and then submit with \`echo {{submit_sentinel}}\` as a command of its own.`;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/**
 * Fills `{{name}}` placeholders. Throws `INVALID_CONFIG` naming the config field when a
 * template uses a name that is not a {@link TEMPLATE_VARIABLES} entry.
 *
 * @example
 * ```ts
 * renderTemplate("Fix {{incident_id}}", { incident_id: "zk-1" }, "agent.instanceTemplate"); // "Fix zk-1"
 * ```
 */
export function renderTemplate(
  template: string,
  variables: Partial<Record<TemplateVariable, string | number>>,
  field: string,
): string {
  return template.replace(PLACEHOLDER, (_match, name: string) => {
    if (!(TEMPLATE_VARIABLES as readonly string[]).includes(name))
      throw new DistDebugError({
        code: "INVALID_CONFIG",
        message: `${field} uses {{${name}}}, which is not a template variable; expected one of ${TEMPLATE_VARIABLES.join(", ")}`,
        data: { field, variable: name },
      });
    return String(variables[name as TemplateVariable] ?? "");
  });
}

/** Throws `INVALID_CONFIG` when one of the config's templates uses an unknown variable. */
export function checkTemplates(agent: {
  systemTemplate?: string | undefined;
  instanceTemplate?: string | undefined;
  formatErrorTemplate?: string | undefined;
}): void {
  renderTemplate(agent.systemTemplate ?? "", {}, "agent.systemTemplate");
  renderTemplate(agent.instanceTemplate ?? "", {}, "agent.instanceTemplate");
  renderTemplate(agent.formatErrorTemplate ?? "", {}, "agent.formatErrorTemplate");
}

/** The bash commands of a model response: the bodies of its ```bash fenced blocks. */
export function parseActions(content: string): string[] {
  return [...content.matchAll(/```bash\s*\n([\s\S]*?)\n```/g)].map((match) =>
    (match[1] ?? "").trim(),
  );
}

/**
 * What the model sees of a command's output: the exit code and the output, cut in the
 * middle when longer than `maxChars` with a note on how much was left out.
 */
export function formatObservation(
  result: { exitCode: number | null; output: string; timedOut: boolean; timeoutMs: number },
  maxChars: number,
): string {
  if (result.timedOut)
    return `The command was killed after ${Math.round(result.timeoutMs / 1000)} s. Use a faster command (narrow the search, avoid interactive or endless programs).\n<output_before_kill>\n${cut(result.output, maxChars)}\n</output_before_kill>`;
  return `<returncode>${result.exitCode ?? "killed"}</returncode>\n<output>\n${cut(result.output, maxChars)}\n</output>`;
}

function cut(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars / 2);
  const tail = maxChars - head;
  return `${text.slice(0, head)}\n<warning>The output was ${text.length} characters; ${text.length - maxChars} characters in the middle are left out. Use head, tail, grep or sed -n to see less at once.</warning>\n${text.slice(text.length - tail)}`;
}
