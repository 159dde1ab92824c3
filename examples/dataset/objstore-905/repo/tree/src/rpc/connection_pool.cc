#include "rpc/connection_pool.h"

namespace objstore::rpc {

Status ConnectionPool::Acquire(const std::string& endpoint, std::unique_ptr<Connection>* out) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& idle = idle_[endpoint];
    while (!idle.empty()) {
      std::unique_ptr<Connection> conn = std::move(idle.back());
      idle.pop_back();
      if (conn->healthy()) {
        *out = std::move(conn);
        return Status::Ok();
      }
    }
  }
  Connection* raw = nullptr;
  if (Status s = Connection::Dial(endpoint, std::chrono::milliseconds(500), &raw); !s.ok()) return s;
  out->reset(raw);
  return Status::Ok();
}

void ConnectionPool::Release(std::unique_ptr<Connection> conn) {
  if (!conn->healthy()) return;  // dropped: the destructor closes the socket
  std::lock_guard<std::mutex> lock(mu_);
  auto& idle = idle_[conn->endpoint()];
  if (idle.size() < max_idle_) idle.push_back(std::move(conn));
}

size_t ConnectionPool::IdleCount(const std::string& endpoint) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = idle_.find(endpoint);
  return it == idle_.end() ? 0 : it->second.size();
}

}  // namespace objstore::rpc
