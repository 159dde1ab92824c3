/**
 * A classic-BPF seccomp program passed to bwrap with `--seccomp FD`. It refuses new user
 * namespaces inside the sandbox: the privileged mode has no user namespace of its own, so
 * without it an agent could `unshare -U` and gain capabilities (mounts) in a namespace it
 * owns; the user-namespace mode has `--disable-userns` too, and gets the same filter. It also
 * refuses memory no process maps (which a sampled memory total cannot see) and file handles
 * (THREATS.md, section 5).
 *
 * Refused with EPERM: `unshare` and `clone` with `CLONE_NEWUSER`, `setns`, `memfd_create` and
 * `memfd_secret` (anonymous files held by a descriptor), `shmget` and `msgget` (System V
 * shared memory and message queues, which outlive every process that used them until the
 * IPC namespace ends), `open_by_handle_at` and `name_to_handle_at` (opening a file by its
 * handle bypasses the mount tree: with a capability it reads any file of the host's file
 * system). `clone3` (whose flags live in memory the filter cannot read) gets ENOSYS, which
 * makes the C library fall back to `clone`. System calls of another ABI (32-bit, x32), which
 * would bypass the numbers checked here, get ENOSYS.
 */

/** Linux `CLONE_NEWUSER`. */
const CLONE_NEWUSER = 0x1000_0000;
const EPERM = 1;
const ENOSYS = 38;
const RET_ALLOW = 0x7fff_0000;
const RET_ERRNO = 0x0005_0000;
/** x32 system calls on x86_64 carry this bit in their number. */
const X32_SYSCALL_BIT = 0x4000_0000;

/** Classic BPF opcodes (linux/bpf_common.h). */
const LD_W_ABS = 0x20;
const JMP_JEQ_K = 0x15;
const JMP_JGE_K = 0x35;
const JMP_JSET_K = 0x45;
const RET_K = 0x06;

/** Offsets in `struct seccomp_data`. */
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;
/** Low 32 bits of args[0] (little-endian hosts). */
const ARG0_LOW_OFFSET = 16;

interface ArchSyscalls {
  /** `AUDIT_ARCH_*` of the native ABI. */
  audit: number;
  unshare: number;
  clone: number;
  clone3: number;
  setns: number;
  /** Refused outright with EPERM (see the file's comment). */
  refused: readonly number[];
  /** The x32 bit applies (x86_64 only). */
  x32: boolean;
}

const ARCHES: Partial<Record<NodeJS.Architecture, ArchSyscalls>> = {
  x64: {
    audit: 0xc000_003e,
    unshare: 272,
    clone: 56,
    clone3: 435,
    setns: 308,
    // memfd_create, memfd_secret, shmget, msgget, open_by_handle_at, name_to_handle_at
    refused: [319, 447, 29, 68, 304, 303],
    x32: true,
  },
  arm64: {
    audit: 0xc000_00b7,
    unshare: 97,
    clone: 220,
    clone3: 435,
    setns: 268,
    refused: [279, 447, 194, 186, 265, 264],
    x32: false,
  },
};

type Instruction = [code: number, jumpTrue: number, jumpFalse: number, k: number];

/** The program for this machine's architecture, or undefined when it has no table here. */
export function userNamespaceFilter(arch: NodeJS.Architecture = process.arch): Buffer | undefined {
  const table = ARCHES[arch];
  if (table === undefined) return undefined;
  const deny = (errno: number): Instruction => [RET_K, 0, 0, RET_ERRNO | errno];
  // Jump offsets count the instructions skipped after the current one.
  const program: Instruction[] = [
    [LD_W_ABS, 0, 0, ARCH_OFFSET],
    [JMP_JEQ_K, 1, 0, table.audit],
    deny(ENOSYS),
    [LD_W_ABS, 0, 0, NR_OFFSET],
    [JMP_JGE_K, table.x32 ? 0 : 1, 1, X32_SYSCALL_BIT],
    deny(ENOSYS),
    [JMP_JEQ_K, 0, 1, table.clone3],
    deny(ENOSYS),
    ...[table.setns, ...table.refused].flatMap((nr): Instruction[] => [
      [JMP_JEQ_K, 0, 1, nr],
      deny(EPERM),
    ]),
    [JMP_JEQ_K, 2, 0, table.unshare],
    [JMP_JEQ_K, 1, 0, table.clone],
    [RET_K, 0, 0, RET_ALLOW],
    [LD_W_ABS, 0, 0, ARG0_LOW_OFFSET],
    [JMP_JSET_K, 0, 1, CLONE_NEWUSER],
    deny(EPERM),
    [RET_K, 0, 0, RET_ALLOW],
  ];
  const bytes = Buffer.alloc(program.length * 8);
  for (const [index, [code, jumpTrue, jumpFalse, k]] of program.entries()) {
    bytes.writeUInt16LE(code, index * 8);
    bytes.writeUInt8(jumpTrue, index * 8 + 2);
    bytes.writeUInt8(jumpFalse, index * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, index * 8 + 4);
  }
  return bytes;
}
