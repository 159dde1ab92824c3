import { z } from "zod";
import { withJsonSchemaRule } from "./internal/json-rule.js";

const MiB = 1024 * 1024;

/** Sandbox paths the sandbox itself owns; a read-only bind may not hide them. */
const reservedTargets = ["/", "/workspace", "/task", "/output", "/tmp", "/proc", "/dev", "/run"];

/** A sandbox path without its trailing slashes (`/` stays `/`). */
function withoutTrailingSlashes(path: string): string {
  return path.replace(/\/+$/, "") || "/";
}

/** The reserved targets with any number of trailing slashes, as a JSON Schema pattern. */
const reservedTargetPattern = `^(?:${reservedTargets.map((target) => target.replace(/\/$/, "")).join("|")})/*$`;

/** A host path bound read-only into the sandbox (a JDK, a Go toolchain, the node binary). */
export const ReadOnlyBind = withJsonSchemaRule(
  z
    .strictObject({
      /**
       * Host path; it must be absolute and exist when the sandbox is created. In a config file
       * a relative path is read against the file's folder (`loadConfig` resolves it).
       */
      source: z.string().min(1, "a host path"),
      /** Absolute path inside the sandbox; defaults to the source path. */
      target: z.string().startsWith("/", "an absolute sandbox path").optional(),
    })
    .refine(
      (bind) => !reservedTargets.includes(withoutTrailingSlashes(bind.target ?? bind.source)),
      {
        message: `a target other than ${reservedTargets.join(", ")} (the sandbox mounts those itself)`,
        path: ["target"],
      },
    ),
  {
    jsonSchema: {
      anyOf: [
        {
          required: ["target"],
          properties: { target: { not: { pattern: reservedTargetPattern } } },
        },
        {
          not: { required: ["target"] },
          properties: { source: { not: { pattern: reservedTargetPattern } } },
        },
      ],
    },
  },
);
/** A read-only bind. */
export type ReadOnlyBind = z.infer<typeof ReadOnlyBind>;

/** Per-command limits. */
export const SandboxLimits = z.strictObject({
  /**
   * Address-space limit per process in bytes (RLIMIT_AS) and, where a cgroup v2 memory
   * controller is delegated (see `createMemoryBudget` in @distdebug/sandbox), the total memory
   * of all the attempt's processes together. Default 4 GiB.
   */
  memoryBytes: z
    .number()
    .int()
    .positive()
    .default(4096 * MiB),
  /**
   * Maximum number of processes of the sandbox user (RLIMIT_NPROC). The kernel counts every
   * process of that uid on the host, so concurrent sandboxes sharing a uid share this budget.
   * Default 256.
   */
  processes: z.number().int().positive().default(256),
  /** Largest file a command may write, in bytes (RLIMIT_FSIZE). Default 256 MiB. */
  fileSizeBytes: z
    .number()
    .int()
    .positive()
    .default(256 * MiB),
  /**
   * How much the workspace (with `/task`) may grow during an attempt, in bytes; `/output` has
   * its own cap (diagnosis and trajectory size). Enforced with a size-capped tmpfs when the
   * runner runs as root. Default 2 GiB.
   */
  diskBytes: z
    .number()
    .int()
    .positive()
    .default(2048 * MiB),
  /** Bytes of stdout and of stderr kept each; the rest is counted and dropped. Default 1 MiB. */
  outputBytes: z.number().int().positive().default(MiB),
  /**
   * The command is killed once stdout and stderr together pass this many bytes (kept or not),
   * so a command printing without end does not burn its whole timeout. Default 256 MiB.
   */
  killOutputBytes: z
    .number()
    .int()
    .positive()
    .default(256 * MiB),
  /** Wall-clock timeout per command in milliseconds. Default 60 s. */
  timeoutMs: z.number().int().positive().default(60_000),
});
/** Per-command limits. */
export type SandboxLimits = z.infer<typeof SandboxLimits>;

/**
 * The unprivileged user commands run as when the host runs the sandbox as root (the kernel
 * does not enforce the process limit for uid 0). Ignored when the caller is not root: commands
 * then run as the caller's uid inside a user namespace. `distdebug run` replaces it, as root,
 * with a uid leased for each attempt (recorded in attempt.json).
 */
export const SandboxUser = z.strictObject({
  /** Default 65534 (`nobody`). */
  uid: z.number().int().min(1).max(4_294_967_294).default(65534),
  /** Default 65534 (`nogroup`). */
  gid: z.number().int().min(1).max(4_294_967_294).default(65534),
});
/** The unprivileged user of a sandbox. */
export type SandboxUser = z.infer<typeof SandboxUser>;

/**
 * What a sandboxed command may see and do. Defaults: bubblewrap, no network, a cleared
 * environment, a 512 MiB tmpfs `/tmp`, uid 65534 and the limits of `SandboxLimits`.
 */
export const SandboxPolicy = z.strictObject({
  /** `bubblewrap`, or `no-sandbox` for development only (loud, recorded in every attempt). */
  backend: z.enum(["bubblewrap", "no-sandbox"]).default("bubblewrap"),
  /**
   * `none`: only the sandbox's own loopback. `gateway`: also a Unix socket to the runner's
   * model gateway, bound at `/run/distdebug/gateway.sock`.
   */
  network: z.enum(["none", "gateway"]).default("none"),
  /** Extra host paths bound read-only (toolchains); `/usr`, `/bin`, `/lib*` and a few `/etc` files always are. */
  readOnlyBinds: z.array(ReadOnlyBind).default([]),
  /** The whole environment inside; nothing is inherited from the parent. */
  env: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"),
      z.string(),
    )
    .default({
      PATH: "/usr/local/bin:/usr/bin:/bin",
      HOME: "/tmp",
      LANG: "C.UTF-8",
      TERM: "dumb",
    }),
  /** Size cap of the tmpfs at `/tmp`, in bytes. Default 512 MiB. */
  tmpfsBytes: z
    .number()
    .int()
    .positive()
    .default(512 * MiB),
  user: SandboxUser.default(SandboxUser.parse({})),
  limits: SandboxLimits.default(SandboxLimits.parse({})),
});
/** What a sandboxed command may see and do. */
export type SandboxPolicy = z.infer<typeof SandboxPolicy>;
/** A policy as written by a user: every field optional. */
export type SandboxPolicyInput = z.input<typeof SandboxPolicy>;
