// A real server on a loopback port and the pooled client against it.
#include <iostream>

#include "rpc/connection_pool.h"
#include "rpc/rpc_client.h"
#include "rpc/server.h"
#include "rpc/wire.h"
#include "test_util.h"

using namespace objstore;

int main() {
  metrics::Registry registry;
  rpc::ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.metrics = &registry;
  rpc::RpcServer server(options);
  server.Register("Echo", [](const std::string& req, std::string* resp) {
    *resp = req;
    return Status::Ok();
  });
  server.Register("Missing", [](const std::string& req, std::string*) { return Status::NotFound("chunk " + req); });
  CHECK_OK(server.Start());
  const std::string endpoint = "127.0.0.1:" + std::to_string(server.port());

  rpc::ConnectionPool pool(4);
  rpc::RpcClient client(&pool);
  std::string resp;
  CHECK_OK(client.Call(endpoint, "Echo", "ping", &resp));
  CHECK(resp == "ping");
  CHECK(pool.IdleCount(endpoint) == 1);
  CHECK_OK(client.Call(endpoint, "Echo", std::string(1 << 20, 'x'), &resp));
  CHECK(resp.size() == 1 << 20);
  CHECK(pool.IdleCount(endpoint) == 1);  // the same connection served both calls

  Status s = client.Call(endpoint, "Missing", "a:1", &resp);
  CHECK(s.code() == Code::kInternal && s.message().find("NOT_FOUND: chunk a:1") != std::string::npos);
  s = client.Call(endpoint, "NoSuchMethod", "", &resp);
  CHECK(s.message().find("no method NoSuchMethod") != std::string::npos);

  rpc::WireWriter w;
  w.PutString("bucket");
  w.PutU64(1ull << 40);
  rpc::WireReader r(w.data());
  CHECK(r.GetString() == "bucket" && r.GetU64() == (1ull << 40) && r.done());
  rpc::WireReader truncated(std::string_view(w.data()).substr(0, 5));
  truncated.GetString();
  CHECK(!truncated.ok());

  server.Stop();
  CHECK(server.active_connections() == 0);
  std::cout << "rpc_loopback_test passed" << std::endl;
  return 0;
}
