#include "common/shutdown.h"

#include <pthread.h>
#include <signal.h>

namespace objstore {

namespace {

sigset_t ShutdownSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

void BlockShutdownSignals() {
  sigset_t set = ShutdownSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // A peer that closes while we write must not kill the process; sends use MSG_NOSIGNAL, but
  // file writes to a closed pipe (the log) would still raise SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
}

int WaitForShutdownSignal() {
  sigset_t set = ShutdownSet();
  int sig = 0;
  sigwait(&set, &sig);
  return sig;
}

}  // namespace objstore
