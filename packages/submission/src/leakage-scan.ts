import { posix } from "node:path";
import type { LeakFinding, LeakKind, Trajectory } from "@distdebug/schema";

/** One rule that matched a command. */
export interface CommandLeak {
  kind: LeakKind;
  rule: string;
}

/** Top folders an agent may read: its own, the toolchains', and harmless devices. */
const ALLOWED_ROOTS = new Set([
  "workspace",
  "task",
  "output",
  "tmp",
  "usr",
  "bin",
  "sbin",
  "lib",
  "lib32",
  "lib64",
  "opt",
]);
const ALLOWED_PATHS = [
  /^\/dev\/(null|zero|u?random|stdin|stdout|stderr|tty|fd(\/\d+)?)$/,
  /^\/proc\/(self|cpuinfo|meminfo|version)(\/|$)/,
  /^\/etc\/(os-release|hostname|localtime)$/,
  /^\/$/,
];

const NETWORK_TOOLS = new Set([
  "curl",
  "wget",
  "nc",
  "ncat",
  "netcat",
  "telnet",
  "ssh",
  "scp",
  "sftp",
  "ftp",
  "socat",
  "rsync",
  "aria2c",
  "lynx",
  "links",
  "w3m",
  "dig",
  "nslookup",
  "ping",
]);
const TEXT_TOOLS = new Set([
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ack",
  "echo",
  "printf",
  "sed",
  "awk",
  "cat",
  "head",
  "tail",
  "less",
  "sort",
  "uniq",
  "wc",
  "cut",
  "tr",
  "find",
  "ls",
]);
const INSTALLERS: readonly [string[], string][] = [
  [["pip", "install"], "pip install downloads packages"],
  [["pip3", "install"], "pip install downloads packages"],
  [["npm", "install"], "npm install downloads packages"],
  [["npm", "i"], "npm install downloads packages"],
  [["npm", "ci"], "npm ci downloads packages"],
  [["yarn", "add"], "yarn add downloads packages"],
  [["go", "get"], "go get downloads modules"],
  [["go", "install"], "go install downloads modules"],
  [["cargo", "install"], "cargo install downloads crates"],
  [["apt-get", "install"], "apt-get install downloads packages"],
  [["apt", "install"], "apt install downloads packages"],
  [["gem", "install"], "gem install downloads gems"],
];

/** Programs whose first operand is a pattern or a script, not a file. */
const PATTERN_FIRST = new Set([
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ack",
  "sed",
  "awk",
  "gawk",
  "perl",
]);
/** Programs that print their arguments and read no file. */
const PRINTERS = new Set(["echo", "printf"]);

/** Drops the bodies of here-documents: they are data written somewhere, not commands. */
function withoutHereDocuments(command: string): string {
  return command.replace(
    /<<-?[ \t]*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1([^\n]*)\n[\s\S]*?(?:\n[ \t]*\2[ \t]*(?=\n|$)|$)/g,
    (_match, _quote, _word, rest: string) => rest,
  );
}

/** Splits a shell command into simple commands at `;`, `&&`, `||`, `|`, newlines and substitutions. */
function segments(command: string): string[] {
  return withoutHereDocuments(command)
    .split(/&&|\|\||[;|\n&]|\$\(|`|\(|\)/)
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

/** Shell words of a simple command, quotes removed (good enough for scanning, not for running). */
function words(segment: string): string[] {
  const result: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const match of segment.matchAll(pattern))
    result.push(match[1] ?? match[2] ?? match[3] ?? "");
  return result;
}

function program(word: string | undefined): string {
  return posix.basename(word ?? "");
}

/** Drops leading `env`, `sudo`, `timeout N`, `VAR=value` and `command` words. */
function commandWords(all: string[]): string[] {
  const list = [...all];
  for (;;) {
    const first = list[0];
    if (first === undefined) return list;
    if (
      /^[A-Za-z_][A-Za-z0-9_]*=/.test(first) ||
      ["env", "sudo", "command", "exec", "nohup", "time"].includes(program(first))
    )
      list.shift();
    else if (program(first) === "timeout") list.splice(0, 2);
    else return list;
  }
}

function gitLeaks(args: string[]): CommandLeak[] {
  const sub = args.find((arg) => !arg.startsWith("-"));
  const rest = args.slice(args.indexOf(sub ?? "") + 1);
  const has = (...flags: string[]) =>
    rest.some(
      (arg) =>
        flags.includes(arg) || flags.some((flag) => flag.endsWith("=") && arg.startsWith(flag)),
    );
  const leaks: CommandLeak[] = [];
  const history = (rule: string) => leaks.push({ kind: "history", rule });
  const network = (rule: string) => leaks.push({ kind: "network", rule });
  switch (sub) {
    case "log":
    case "shortlog":
    case "whatchanged":
      if (
        has(
          "--all",
          "--reflog",
          "--branches",
          "--remotes",
          "--tags",
          "-g",
          "--walk-reflogs",
          "--branches=",
          "--remotes=",
          "--tags=",
          "--glob=",
        )
      )
        history(
          `git ${sub} ${rest.find((arg) => arg.startsWith("--") || arg === "-g")} reads history beyond the one commit`,
        );
      break;
    case "reflog":
      history("git reflog reads earlier states of the repository");
      break;
    case "show": {
      const revisions = rest.filter((arg) => !arg.startsWith("-") && !/^HEAD(:|$)/.test(arg));
      if (revisions.length > 0 || has("--all"))
        history("git show of another revision reads history beyond the one commit");
      break;
    }
    case "rev-list":
      if (has("--all", "--reflog", "--branches", "--remotes", "--tags"))
        history("git rev-list over every ref reads history");
      break;
    case "fsck":
      if (has("--lost-found", "--unreachable", "--dangling"))
        history("git fsck for unreachable objects digs up history");
      break;
    case "cat-file":
      history("git cat-file reads raw objects, possibly of other commits");
      break;
    case "stash":
      if (rest[0] === "list" || rest[0] === "show") history("git stash reads stashed states");
      break;
    case "for-each-ref":
      history("git for-each-ref lists every ref");
      break;
    case "clone":
    case "fetch":
    case "pull":
    case "ls-remote":
    case "remote":
    case "submodule":
      if (sub !== "remote" || ["add", "update", "show", "set-url"].includes(rest[0] ?? ""))
        network(`git ${sub} reaches a remote repository`);
      break;
  }
  return leaks;
}

function outsidePath(word: string): string | undefined {
  const candidate = word.replace(/^(?:[<>]+|[0-9]?>{1,2}|--?[A-Za-z-]+=)/, "");
  if (!candidate.startsWith("/")) return undefined;
  const path = posix.normalize(candidate.replace(/[,;:'")]+$/, ""));
  if (ALLOWED_PATHS.some((pattern) => pattern.test(path))) return undefined;
  const root = path.split("/")[1] ?? "";
  return ALLOWED_ROOTS.has(root) ? undefined : path;
}

/**
 * The leak rules one shell command breaks: reading version-control history (`git log --all`,
 * `git reflog`, `git show <commit>`, `.git/` internals), reaching the network (`curl`, `wget`,
 * `git clone`, package installs, URLs, `/dev/tcp`), or reading outside `/workspace`, `/task`,
 * `/output` and `/tmp` (toolchain folders such as `/usr` and `/opt` are allowed).
 *
 * @example
 * ```ts
 * scanCommand("cd /workspace && git log --all --oneline");
 * // [{ kind: "history", rule: "git log --all reads history beyond the one commit" }]
 * ```
 */
export function scanCommand(command: string): CommandLeak[] {
  const leaks: CommandLeak[] = [];
  const add = (leak: CommandLeak) => {
    if (!leaks.some((known) => known.kind === leak.kind && known.rule === leak.rule))
      leaks.push(leak);
  };
  if (/\/dev\/(tcp|udp)\//.test(command))
    add({ kind: "network", rule: "/dev/tcp opens a network connection" });
  if (/\.git\/(objects|packed-refs|logs|refs|ORIG_HEAD|FETCH_HEAD)/.test(command))
    add({ kind: "history", rule: "reading .git internals digs up history" });
  for (const segment of segments(command)) {
    const list = commandWords(words(segment));
    const name = program(list[0]);
    if (name === "git") for (const leak of gitLeaks(list.slice(1))) add(leak);
    if (NETWORK_TOOLS.has(name)) add({ kind: "network", rule: `${name} reaches the network` });
    for (const [prefix, rule] of INSTALLERS) {
      if (prefix.every((word, index) => program(list[index]) === word || list[index] === word))
        add({ kind: "network", rule });
    }
    if (
      ["python", "python3", "node", "perl", "ruby"].includes(name) &&
      /\b(urllib|requests|http\.client|socket|fetch\(|https?\.get|Net::HTTP|LWP)\b/.test(segment)
    )
      add({ kind: "network", rule: `${name} code that opens network connections` });
    if (
      !TEXT_TOOLS.has(name) &&
      /\b(?:https?|ftp):\/\/(?!(?:localhost|127\.0\.0\.1|\[::1\])[:/])/.test(segment)
    )
      add({ kind: "network", rule: "a command with a remote URL" });
    if (PRINTERS.has(name)) continue;
    const patternAt = PATTERN_FIRST.has(name)
      ? list.findIndex((word, index) => index > 0 && !word.startsWith("-"))
      : -1;
    for (const [index, word] of list.entries()) {
      if (index === patternAt) continue;
      const path = outsidePath(word);
      if (path)
        add({
          kind: "outside-workspace",
          rule: `reads ${path}, outside /workspace, /task, /output and /tmp`,
        });
    }
  }
  return leaks;
}

/**
 * Scans every command step of a trajectory with {@link scanCommand}.
 *
 * @example
 * ```ts
 * const findings = scanTrajectory(trajectory, { incidentId: "zklite-142", attempt: 1 });
 * ```
 */
export function scanTrajectory(
  trajectory: Pick<Trajectory, "steps">,
  where: { incidentId: string; attempt: number },
): LeakFinding[] {
  const findings: LeakFinding[] = [];
  trajectory.steps.forEach((step, index) => {
    if (step.type !== "command") return;
    for (const leak of scanCommand(step.command))
      findings.push({
        incidentId: where.incidentId,
        attempt: where.attempt,
        step: index,
        kind: leak.kind,
        rule: leak.rule,
        command: step.command.length > 500 ? `${step.command.slice(0, 500)}…` : step.command,
      });
  });
  return findings;
}
