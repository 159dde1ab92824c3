/*
 * distdebug-launch: the first program a sandboxed command runs inside bubblewrap. In one
 * process it does what `prlimit`, `setpriv` and `env -i` did in three: sets the limits, caps
 * the inodes of the sandbox's own tmpfs mounts, drops to the sandbox user (every capability
 * and supplementary group gone, no new privileges) and executes the command with exactly the
 * given environment.
 *
 *   distdebug-launch NPROC AS FSIZE NOFILE UID GID NMOUNT (PATH INODES)... NENV NAME=VALUE... -- COMMAND ARGS...
 *
 * UID and GID `-` keep the current user (the user-namespace mode, where NMOUNT is 0: the
 * remount needs the capabilities of the privileged mode). Exit code 127 (and a message on
 * stderr) when a step fails. Built by scripts/setup.sh when a C compiler exists; without it
 * the privileged mode is refused and the user-namespace mode uses `prlimit`. The sandbox
 * passes it to bubblewrap through a descriptor, so it runs from any install location.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

static void die(const char *what) {
  fprintf(stderr, "distdebug-launch: %s: %s\n", what, strerror(errno));
  exit(127);
}

static rlim_t number(const char *text) {
  char *end;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || end == text) {
    errno = EINVAL;
    die(text);
  }
  return (rlim_t)value;
}

static void limit(int resource, rlim_t value, const char *name) {
  struct rlimit rl = {value, value};
  if (setrlimit(resource, &rl) != 0) die(name);
}

static void drop_user(const char *uid_text, const char *gid_text) {
  uid_t uid = (uid_t)number(uid_text);
  gid_t gid = (gid_t)number(gid_text);
  for (int cap = 0; cap <= 63; cap++)
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) die("drop the bounding set");
  if (setgroups(0, NULL) != 0) die("clear the groups");
  if (setresgid(gid, gid, gid) != 0) die("set the gid");
  if (setresuid(uid, uid, uid) != 0) die("set the uid");
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  memset(data, 0, sizeof data);
  if (syscall(SYS_capset, &header, data) != 0) die("clear the capabilities");
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
}

/* Caps a tmpfs the sandbox mounted (bwrap cannot pass nr_inodes), keeping nosuid and nodev. */
static void cap_inodes(const char *path, const char *inodes) {
  char options[64];
  snprintf(options, sizeof options, "nr_inodes=%llu", (unsigned long long)number(inodes));
  if (mount("tmpfs", path, NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV, options) != 0) die(path);
}

static void usage(void) {
  fprintf(stderr, "usage: distdebug-launch NPROC AS FSIZE NOFILE UID GID NMOUNT (PATH INODES)... NENV NAME=VALUE... -- COMMAND...\n");
  exit(127);
}

int main(int argc, char **argv) {
  if (argc < 10) usage();
  limit(RLIMIT_NPROC, number(argv[1]), "RLIMIT_NPROC");
  limit(RLIMIT_AS, number(argv[2]), "RLIMIT_AS");
  limit(RLIMIT_FSIZE, number(argv[3]), "RLIMIT_FSIZE");
  limit(RLIMIT_NOFILE, number(argv[4]), "RLIMIT_NOFILE");
  limit(RLIMIT_CORE, 0, "RLIMIT_CORE");
  long mounts = (long)number(argv[7]);
  long next = 8 + 2 * mounts;
  if (mounts < 0 || next >= argc) usage();
  for (long i = 0; i < mounts; i++) cap_inodes(argv[8 + 2 * i], argv[9 + 2 * i]);
  if (strcmp(argv[5], "-") != 0) drop_user(argv[5], argv[6]);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("set no_new_privs");
  long count = (long)number(argv[next]);
  if (count < 0 || next + 1 + count >= argc || strcmp(argv[next + 1 + count], "--") != 0) {
    fprintf(stderr, "distdebug-launch: expected %ld variables then --\n", count);
    return 127;
  }
  char **env = calloc((size_t)count + 1, sizeof *env);
  if (env == NULL) die("calloc");
  for (long i = 0; i < count; i++) env[i] = argv[next + 1 + i];
  char **command = argv + next + 1 + count + 1;
  if (*command == NULL) usage();
  environ = env; /* execvp searches the command's own PATH, as `env -i` did */
  execvp(command[0], command);
  die(command[0]);
}
