import { z } from "zod";

const MiB = 1024 * 1024;

/** A host path bound read-only into the sandbox (a JDK, a Go toolchain, the node binary). */
export const ReadOnlyBind = z.object({
  /** Absolute host path. */
  source: z.string().startsWith("/", "an absolute host path"),
  /** Absolute path inside the sandbox; defaults to the source path. */
  target: z.string().startsWith("/", "an absolute sandbox path").optional(),
});
/** A read-only bind. */
export type ReadOnlyBind = z.infer<typeof ReadOnlyBind>;

/** Per-command limits. */
export const SandboxLimits = z.object({
  /** Address-space limit per process in bytes. Default 4 GiB. */
  memoryBytes: z
    .number()
    .int()
    .positive()
    .default(4096 * MiB),
  /** Maximum number of processes of the sandbox user. Default 256. */
  processes: z.number().int().positive().default(256),
  /** Largest file a command may write, in bytes. Default 256 MiB. */
  fileSizeBytes: z
    .number()
    .int()
    .positive()
    .default(256 * MiB),
  /** Bytes of stdout and of stderr kept each; the rest is counted and dropped. Default 1 MiB. */
  outputBytes: z.number().int().positive().default(MiB),
  /** Wall-clock timeout per command in milliseconds. Default 60 s. */
  timeoutMs: z.number().int().positive().default(60_000),
});
/** Per-command limits. */
export type SandboxLimits = z.infer<typeof SandboxLimits>;

/**
 * What a sandboxed command may see and do. Defaults: bubblewrap, no network, a cleared
 * environment, a 512 MiB tmpfs `/tmp`, and the limits of {@link SandboxLimits}.
 */
export const SandboxPolicy = z.object({
  /** `bubblewrap`, or `no-sandbox` for development only (loud, recorded in every attempt). */
  backend: z.enum(["bubblewrap", "no-sandbox"]).default("bubblewrap"),
  /** `none`: only the sandbox's own loopback. `gateway`: a Unix socket to the runner's model gateway. */
  network: z.enum(["none", "gateway"]).default("none"),
  readOnlyBinds: z.array(ReadOnlyBind).default([]),
  /** The whole environment inside; nothing is inherited from the parent. */
  env: z.record(z.string(), z.string()).default({
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
  limits: SandboxLimits.default(SandboxLimits.parse({})),
});
/** What a sandboxed command may see and do. */
export type SandboxPolicy = z.infer<typeof SandboxPolicy>;
/** A policy as written by a user: every field optional. */
export type SandboxPolicyInput = z.input<typeof SandboxPolicy>;
