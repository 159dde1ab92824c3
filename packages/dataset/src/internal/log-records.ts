/**
 * Log records in an incident's artifacts: which lines are records a logger printed, and
 * the message part of each, to match against the string literals of the code.
 */

/** One record: its artifact line and the message to explain. */
export interface LogRecord {
  /** 1-based line of the artifact. */
  readonly artifactLine: number;
  /** Where a literal is searched: a JSON or logfmt record's message, else the whole line. */
  readonly text: string;
  /** The message without the logger's prefix (timestamp, level, thread, logger). */
  readonly message: string;
}

const LEVEL =
  "(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERRO|CRIT|CRITICAL|FATAL|PANIC|SEVERE)";
const TIME_NEAR_START = /^.{0,40}?(?<!\d)\d{1,2}:\d{2}:\d{2}/;
const GLOG = /^[IWEF]\d{4}\s/;
const PYTHON_LOGGING = new RegExp(`^[\\w.]+\\s+-\\s+${LEVEL}\\s+-\\s`);
const LEADING_LEVEL = new RegExp(`^\\[?${LEVEL}\\b`);
/** TiKV's and PD's layout: `[time] [LEVEL] [file.rs:12] ["message"] [key=value]...`. */
const BRACKETED_RECORD = /^\[[^\]]+\]\s+\[[A-Z]+\]\s+\[[^\]]+\]\s+\[("(?:[^"\\]|\\.)*"|[^\]]*)\]/;
const LOGFMT_MESSAGE = /\bmsg=("(?:[^"\\]|\\.)*"|\S+)/;
/** One prefix token: a bracket group, a time or date, a level, a pid:role, a separator. */
const PREFIX_TOKEN = new RegExp(
  `^\\s*(?:\\[[^\\]]*\\]|\\([^)]*\\)|\\d+:[XCSM](?=\\s)|[\\d/:.,+TZ-]*\\d[\\d/:.,+TZ-]*|${LEVEL}\\b:?|[IWEF]\\d{4}|\\d+:[A-Z]|\\d{1,2}\\s+[A-Z][a-z]{2}|[A-Z][a-z]{2}\\s+\\d{1,2}|[-|#*>:]|[\\w.$]+\\.[\\w$]+(?:@\\d+)?\\s+-(?=\\s))`,
);

/** Whether a line is a record a logger printed (not a trace line, a banner or prose). */
function isRecord(line: string): boolean {
  const trimmed = line.trim();
  if (trimmed === "") return false;
  if (trimmed.startsWith("{") && /"(?:msg|message|level)"\s*:/.test(trimmed)) return true;
  if (/\blevel=\w+/.test(trimmed) && LOGFMT_MESSAGE.test(trimmed)) return true;
  return (
    TIME_NEAR_START.test(trimmed) ||
    GLOG.test(trimmed) ||
    PYTHON_LOGGING.test(trimmed) ||
    LEADING_LEVEL.test(trimmed)
  );
}

function jsonMessage(line: string): string | undefined {
  try {
    const value: unknown = JSON.parse(line.trim());
    if (typeof value !== "object" || value === null) return undefined;
    const record = value as Record<string, unknown>;
    const message = record.msg ?? record.message;
    return typeof message === "string" ? message : undefined;
  } catch {
    return undefined;
  }
}

/** A captured value as printed: a quoted one unescaped, a bare one as is. */
function unquoted(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (!raw.startsWith('"')) return raw;
  try {
    return JSON.parse(raw) as string;
  } catch {
    return raw.slice(1, -1);
  }
}

function logfmtMessage(line: string): string | undefined {
  return unquoted(LOGFMT_MESSAGE.exec(line)?.[1]);
}

function bracketedMessage(line: string): string | undefined {
  return unquoted(BRACKETED_RECORD.exec(line.trim())?.[1]);
}

/** The line without its leading prefix tokens (timestamp, level, thread, logger). */
function stripPrefix(line: string): string {
  let rest = line;
  for (let guard = 0; guard < 32; guard += 1) {
    const token = PREFIX_TOKEN.exec(rest);
    if (!token || token[0].trim() === "") break;
    rest = rest.slice(token[0].length);
  }
  return rest.trim();
}

/** The records of an artifact's text, each with its message. */
export function findLogRecords(text: string): LogRecord[] {
  const records: LogRecord[] = [];
  for (const [index, line] of text.split("\n").entries()) {
    if (!isRecord(line)) continue;
    const structured = jsonMessage(line) ?? logfmtMessage(line) ?? bracketedMessage(line);
    if (structured !== undefined) {
      records.push({ artifactLine: index + 1, text: structured, message: structured });
      continue;
    }
    const message = stripPrefix(line);
    records.push({ artifactLine: index + 1, text: line, message: message === "" ? line : message });
  }
  return records;
}
