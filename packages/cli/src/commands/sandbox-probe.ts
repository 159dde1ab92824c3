import { probeSandbox } from "@distdebug/sandbox";
import { defineCommand } from "../command.js";

export default defineCommand({
  usage: "sandbox probe",
  description:
    "Tells which sandbox backends work on this host and why not (bwrap missing, not root, user namespaces disabled), by running a trial command in each bubblewrap mode. Exits 1 when no bubblewrap mode works.",
  options: {},
  async run(args, io) {
    const probe = await probeSandbox();
    if (args.values.json) {
      io.stdout(`${JSON.stringify({ ok: probe.recommended !== undefined, ...probe }, null, 2)}\n`);
      return probe.recommended ? 0 : 1;
    }
    io.stdout(
      `bwrap: ${probe.bwrapPath ? `${probe.bwrapPath} (${probe.bwrapVersion ?? "unknown version"})` : "not found"}; running as uid ${probe.uid}\n`,
    );
    for (const backend of probe.backends) {
      const name = backend.mode ? `${backend.backend} (${backend.mode})` : backend.backend;
      const verdict = backend.unsafe
        ? "available, UNSAFE: no isolation, development only"
        : backend.available
          ? "available"
          : `unavailable: ${backend.reason}`;
      io.stdout(
        `${backend.unsafe ? "warn " : backend.available ? "ok   " : "no   "} ${name.padEnd(30)} ${verdict}\n`,
      );
      if (!backend.available && backend.fix)
        io.stdout(`      ${"".padEnd(30)} fix: ${backend.fix}\n`);
    }
    const { memory, processes, disk } = probe.resources;
    io.stdout(`resources: memory ${memory}, processes ${processes}, disk ${disk}\n`);
    if (probe.cgroupV2Reason !== undefined)
      io.stdout(`      no cgroup for memory: ${probe.cgroupV2Reason}\n`);
    io.stdout(
      probe.recommended
        ? `sandbox: bubblewrap in ${probe.recommended.mode} mode\n`
        : "sandbox: no bubblewrap mode works on this host\n",
    );
    return probe.recommended ? 0 : 1;
  },
});
