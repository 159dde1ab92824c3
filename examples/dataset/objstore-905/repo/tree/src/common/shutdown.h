#pragma once

namespace objstore {

// Blocks SIGINT and SIGTERM in the calling thread and every thread it starts afterwards.
// Call first thing in main(), before any thread exists.
void BlockShutdownSignals();

// Waits for SIGINT or SIGTERM and returns its number.
int WaitForShutdownSignal();

}  // namespace objstore
