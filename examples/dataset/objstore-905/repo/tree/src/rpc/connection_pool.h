#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rpc/connection.h"

namespace objstore::rpc {

// Keeps idle connections per endpoint so calls do not pay a dial each time.
class ConnectionPool {
 public:
  explicit ConnectionPool(size_t max_idle_per_endpoint = 16) : max_idle_(max_idle_per_endpoint) {}

  // Returns an idle connection to the endpoint or dials a new one.
  Status Acquire(const std::string& endpoint, std::unique_ptr<Connection>* out);
  // Gives a connection back after a call.
  void Release(std::unique_ptr<Connection> conn);

  size_t IdleCount(const std::string& endpoint) const;

 private:
  size_t max_idle_;
  mutable std::mutex mu_;
  std::map<std::string, std::vector<std::unique_ptr<Connection>>> idle_;
};

// Returns its connection to the pool when it goes out of scope.
class PooledConnection {
 public:
  PooledConnection(ConnectionPool* pool, std::unique_ptr<Connection> conn) : pool_(pool), conn_(std::move(conn)) {}
  ~PooledConnection() {
    if (conn_) pool_->Release(std::move(conn_));
  }
  PooledConnection(const PooledConnection&) = delete;
  PooledConnection& operator=(const PooledConnection&) = delete;

  Connection* operator->() { return conn_.get(); }
  Connection* get() { return conn_.get(); }

 private:
  ConnectionPool* pool_;
  std::unique_ptr<Connection> conn_;
};

}  // namespace objstore::rpc
