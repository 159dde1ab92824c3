/**
 * The bare-bwrap floor the benches compare the sandbox with: bwrap with the mounts and
 * namespaces `sandbox.exec` uses in privileged mode (the /usr and root links, the /etc files,
 * /proc, /dev, a size-capped /tmp, the binds given, a cleared environment), running the
 * command directly: no limits, uid drop or seccomp filter.
 */
import { lstatSync, readlinkSync } from "node:fs";

/** A bind of the floor: host folder, path inside, read-only or not. */
export interface FloorBind {
  source: string;
  target: string;
  readOnly?: boolean;
}

/** bwrap's arguments for `/bin/sh -c command` with the sandbox's mounts and `binds` (the first is the working folder). */
export function sameMountArgs(binds: readonly FloorBind[], command: string): string[] {
  const args = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"];
  args.push("--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname", "sandbox");
  args.push("--ro-bind", "/usr", "/usr");
  for (const path of ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]) {
    try {
      if (lstatSync(path).isSymbolicLink()) args.push("--symlink", readlinkSync(path), path);
    } catch {
      // Not on this host.
    }
  }
  const etc = ["passwd", "group", "nsswitch.conf", "ld.so.cache", "ld.so.conf", "ld.so.conf.d"];
  etc.push("alternatives", "localtime", "ssl", "ca-certificates", "mime.types");
  for (const name of etc) args.push("--ro-bind-try", `/etc/${name}`, `/etc/${name}`);
  args.push("--proc", "/proc", "--dev", "/dev");
  args.push("--perms", "1777", "--size", String(512 * 1024 * 1024), "--tmpfs", "/tmp");
  for (const bind of binds)
    args.push(bind.readOnly ? "--ro-bind" : "--bind", bind.source, bind.target);
  args.push("--chdir", binds[0]?.target ?? "/", "--clearenv");
  for (const [name, value] of Object.entries({
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: "/tmp",
    LANG: "C.UTF-8",
    TERM: "dumb",
  }))
    args.push("--setenv", name, value);
  return [...args, "--", "/bin/sh", "-c", command];
}
