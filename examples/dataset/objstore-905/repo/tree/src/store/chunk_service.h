#pragma once

#include <mutex>
#include <set>
#include <string>

#include "common/status.h"
#include "metrics/metrics.h"
#include "rpc/server.h"
#include "store/chunk_store.h"
#include "store/journal.h"

namespace objstore {

// The storage node's RPC methods over its chunk store and journal (see chunk_protocol.h
// for the payloads).
class ChunkService {
 public:
  ChunkService(std::string node_name, ChunkStore* store, Journal* journal, metrics::Registry* metrics);

  // Handles the journal's records at startup: a put that began but never finished may
  // have left a damaged file, which is removed so the gateway's repair writes it again.
  void OnReplay(const JournalRecord& record);
  void FinishReplay();

  void RegisterWith(rpc::RpcServer* server);

  Status Put(const std::string& request, std::string* response);
  Status Get(const std::string& request, std::string* response);
  Status Stat(const std::string& request, std::string* response);
  Status Delete(const std::string& request, std::string* response);
  Status List(const std::string& request, std::string* response);

 private:
  std::string node_name_;
  ChunkStore* store_;
  Journal* journal_;
  std::set<std::string> unfinished_;  // chunk ids seen in kPutBegin without kPutDone
  metrics::Counter* bytes_written_;
  metrics::Counter* bytes_read_;
  metrics::Counter* corrupt_reads_;
  metrics::Histogram* put_seconds_;
};

}  // namespace objstore
