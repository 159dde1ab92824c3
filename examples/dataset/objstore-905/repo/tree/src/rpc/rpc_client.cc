#include "rpc/rpc_client.h"

#include <thread>

namespace objstore::rpc {

Status RpcClient::Call(const std::string& endpoint, const std::string& method, const std::string& request,
                       std::string* response, const CallOptions& options) {
  Status last;
  for (int attempt = 0; attempt <= options.max_retries; ++attempt) {
    last = CallOnce(endpoint, method, request, response, options.timeout);
    if (last.ok() || last.code() != Code::kUnavailable) return last;
    std::this_thread::sleep_for(std::chrono::milliseconds(20 << attempt));
  }
  return last;
}

Status RpcClient::CallOnce(const std::string& endpoint, const std::string& method, const std::string& request,
                           std::string* response, std::chrono::milliseconds timeout) {
  std::unique_ptr<Connection> raw;
  if (Status s = pool_->Acquire(endpoint, &raw); !s.ok()) return s;
  PooledConnection conn(pool_, std::move(raw));

  Frame out;
  out.request_id = conn->NextRequestId();
  out.method = method;
  out.payload = request;
  if (Status s = conn->WriteFrame(out); !s.ok()) return s;

  auto deadline = std::chrono::steady_clock::now() + timeout;
  Frame in;
  Status s = conn->ReadFrame(deadline, &in);
  if (!s.ok()) {
    return s;
  }
  if (in.method == "error") {
    return Status::Internal(endpoint + " " + method + ": " + in.payload);
  }
  *response = std::move(in.payload);
  return Status::Ok();
}

}  // namespace objstore::rpc
