#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "common/status.h"

namespace objstore::rpc {

// One frame on the wire: a request id, a method and a payload.
struct Frame {
  uint64_t request_id = 0;
  std::string method;
  std::string payload;
};

// A connection to one storage node. Requests on a connection are strictly sequential:
// write a request frame, read the response frame.
class Connection {
 public:
  Connection(std::string endpoint, int fd);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  static Status Dial(const std::string& endpoint, std::chrono::milliseconds timeout, Connection** out);

  Status WriteFrame(const Frame& frame);
  // Reads the next frame, waiting at most until the deadline.
  Status ReadFrame(std::chrono::steady_clock::time_point deadline, Frame* frame);

  const std::string& endpoint() const { return endpoint_; }
  bool healthy() const { return healthy_; }
  void MarkBroken() { healthy_ = false; }
  uint64_t NextRequestId() { return ++last_request_id_; }

 private:
  Status ReadExact(char* buf, size_t n, std::chrono::steady_clock::time_point deadline);

  std::string endpoint_;
  int fd_;
  bool healthy_ = true;
  uint64_t last_request_id_ = 0;
};

}  // namespace objstore::rpc
