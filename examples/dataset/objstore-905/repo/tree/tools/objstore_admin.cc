// objstore-admin: operator commands against gateways and storage nodes.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "client/object_client.h"
#include "common/strings.h"
#include "rpc/connection_pool.h"
#include "rpc/rpc_client.h"
#include "store/chunk_protocol.h"
#include "store/placement.h"

namespace {

using objstore::Status;

constexpr const char* kUsage = R"(usage: objstore-admin [--gateway host:port] <command> [args]

  bucket ls                           list buckets
  bucket create <name> <owner>        create a bucket
  bucket rm <name>                    delete an empty bucket
  object ls <bucket> [prefix]         list objects
  object head <bucket> <key>          show an object's metadata and chunk placement
  object put <bucket> <key> <file>    upload a file
  object get <bucket> <key> <file>    download to a file
  object rm <bucket> <key>            delete an object
  chunk stat <osd> <object:index>     size and checksum of a chunk on one node
  chunk ls <osd> [prefix]             chunks stored on one node
  osd ping <osd>...                   check that storage nodes answer
  placement <object> <osd>...         replica order of an object over the given nodes
  scrub <osd>                         compare a node's chunks with the gateway's metadata
  metrics <endpoint>                  print a server's metrics
  checkpoint                          make the gateway write a metadata snapshot
)";

struct Admin {
  std::string gateway = "127.0.0.1:8700";
  objstore::rpc::ConnectionPool pool{2};
  objstore::rpc::RpcClient rpc{&pool};

  objstore::client::ObjectClient Client() { return objstore::client::ObjectClient({.gateways = {gateway}}); }

  Status CallNode(const std::string& osd, const char* method, const std::string& req, std::string* resp) {
    objstore::rpc::CallOptions opts;
    opts.timeout = std::chrono::milliseconds(5000);
    return objstore::client::RemoteStatus(rpc.Call(osd, method, req, resp, opts));
  }
};

int Fail(const Status& s) {
  std::cerr << "objstore-admin: " << s.ToString() << std::endl;
  return 1;
}

int BadUsage() {
  std::cerr << kUsage;
  return 2;
}

void PrintObject(const objstore::ObjectMeta& m) {
  std::printf("%s/%s\n  size %llu, %zu chunks of %u bytes, etag %s\n  type %s, modified %lld\n  storage id %s on",
              m.bucket.c_str(), m.key.c_str(), static_cast<unsigned long long>(m.size), m.chunk_count(), m.chunk_size,
              m.ETag().c_str(), m.content_type.c_str(), static_cast<long long>(m.mtime), m.storage_id.c_str());
  for (const auto& r : m.replicas) std::printf(" %s", r.c_str());
  std::printf("\n");
}

int BucketCommand(Admin& admin, const std::vector<std::string>& args) {
  auto client = admin.Client();
  if (args.size() == 1 && args[0] == "ls") {
    std::vector<objstore::BucketInfo> buckets;
    if (Status s = client.ListBuckets(&buckets); !s.ok()) return Fail(s);
    for (const auto& b : buckets) std::printf("%-40s %-20s %lld\n", b.name.c_str(), b.owner.c_str(),
                                              static_cast<long long>(b.created));
    return 0;
  }
  if (args.size() == 3 && args[0] == "create") {
    Status s = client.CreateBucket(args[1], args[2]);
    return s.ok() ? 0 : Fail(s);
  }
  if (args.size() == 2 && args[0] == "rm") {
    Status s = client.DeleteBucket(args[1]);
    return s.ok() ? 0 : Fail(s);
  }
  return BadUsage();
}

int ObjectCommand(Admin& admin, const std::vector<std::string>& args) {
  auto client = admin.Client();
  if (args.size() >= 2 && args.size() <= 3 && args[0] == "ls") {
    Status s = client.List(args[1], args.size() == 3 ? args[2] : "", [](const objstore::ObjectMeta& m) {
      std::printf("%12llu  %s\n", static_cast<unsigned long long>(m.size), m.key.c_str());
      return true;
    });
    return s.ok() ? 0 : Fail(s);
  }
  if (args.size() == 3 && args[0] == "head") {
    objstore::ObjectMeta meta;
    if (Status s = client.Head(args[1], args[2], &meta); !s.ok()) return Fail(s);
    PrintObject(meta);
    return 0;
  }
  if (args.size() == 4 && args[0] == "put") {
    std::ifstream in(args[3], std::ios::binary);
    if (!in) return Fail(Status::NotFound("cannot read " + args[3]));
    std::ostringstream data;
    data << in.rdbuf();
    objstore::ObjectMeta meta;
    if (Status s = client.Put(args[1], args[2], data.str(), "", &meta); !s.ok()) return Fail(s);
    PrintObject(meta);
    return 0;
  }
  if (args.size() == 4 && args[0] == "get") {
    std::string data;
    if (Status s = client.Get(args[1], args[2], &data); !s.ok()) return Fail(s);
    std::ofstream out(args[3], std::ios::binary);
    out << data;
    return out ? 0 : Fail(Status::Internal("cannot write " + args[3]));
  }
  if (args.size() == 3 && args[0] == "rm") {
    Status s = client.Delete(args[1], args[2]);
    return s.ok() ? 0 : Fail(s);
  }
  return BadUsage();
}

int ChunkCommand(Admin& admin, const std::vector<std::string>& args) {
  if (args.size() == 3 && args[0] == "stat") {
    std::string resp;
    if (Status s = admin.CallNode(args[1], objstore::chunk_methods::kStat, args[2], &resp); !s.ok()) return Fail(s);
    objstore::ChunkStat stat;
    if (!objstore::DecodeStat(resp, &stat)) return Fail(Status::Internal("unexpected StatChunk answer: " + resp));
    std::printf("%s on %s: %llu bytes, checksum %s, modified %lld\n", args[2].c_str(), args[1].c_str(),
                static_cast<unsigned long long>(stat.size), objstore::Hex32(stat.checksum).c_str(),
                static_cast<long long>(stat.mtime));
    return 0;
  }
  if ((args.size() == 2 || args.size() == 3) && args[0] == "ls") {
    std::string resp;
    Status s = admin.CallNode(args[1], objstore::chunk_methods::kList, args.size() == 3 ? args[2] : "", &resp);
    if (!s.ok()) return Fail(s);
    std::fwrite(resp.data(), 1, resp.size(), stdout);
    return 0;
  }
  return BadUsage();
}

int PingCommand(Admin& admin, const std::vector<std::string>& osds) {
  int failed = 0;
  for (const auto& osd : osds) {
    std::string name;
    auto start = std::chrono::steady_clock::now();
    Status s = admin.CallNode(osd, objstore::chunk_methods::kPing, "", &name);
    auto ms = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    if (s.ok()) {
      std::printf("%-24s %-16s %.2f ms\n", osd.c_str(), name.c_str(), static_cast<double>(ms.count()) / 1000.0);
    } else {
      std::printf("%-24s %s\n", osd.c_str(), s.ToString().c_str());
      ++failed;
    }
  }
  return failed == 0 ? 0 : 1;
}

int PlacementCommand(const std::vector<std::string>& args) {
  if (args.size() < 2) return BadUsage();
  std::vector<std::string> osds(args.begin() + 1, args.end());
  objstore::Placement placement(osds, static_cast<int>(osds.size()));
  for (const auto& osd : placement.ReplicasFor(args[0])) {
    std::printf("%-24s %016llx\n", osd.c_str(),
                static_cast<unsigned long long>(objstore::Placement::Score(osd, args[0])));
  }
  return 0;
}

// Chunks on the node that no object references are orphans (a failed delete); chunks that
// an object places on the node but the node lacks are missing (a failed write or a disk).
int ScrubCommand(Admin& admin, const std::string& osd) {
  std::string listing;
  if (Status s = admin.CallNode(osd, objstore::chunk_methods::kList, "", &listing); !s.ok()) return Fail(s);
  std::set<std::string> on_node;
  for (const auto& line : objstore::SplitList(listing, '\n')) on_node.insert(line);

  auto client = admin.Client();
  std::vector<objstore::BucketInfo> buckets;
  if (Status s = client.ListBuckets(&buckets); !s.ok()) return Fail(s);
  std::map<std::string, std::string> expected;  // chunk id -> bucket/key
  for (const auto& b : buckets) {
    Status s = client.List(b.name, "", [&](const objstore::ObjectMeta& m) {
      bool placed_here = false;
      for (const auto& r : m.replicas) placed_here |= (r == osd);
      for (size_t i = 0; placed_here && i < m.chunk_count(); ++i) {
        expected[m.storage_id + ":" + std::to_string(i)] = m.bucket + "/" + m.key;
      }
      return true;
    });
    if (!s.ok()) return Fail(s);
  }
  size_t orphans = 0, missing = 0;
  for (const auto& id : on_node) {
    if (expected.count(id) == 0) {
      std::printf("orphan  %s\n", id.c_str());
      ++orphans;
    }
  }
  for (const auto& [id, object] : expected) {
    if (on_node.count(id) == 0) {
      std::printf("missing %s (%s)\n", id.c_str(), object.c_str());
      ++missing;
    }
  }
  std::printf("%s: %zu chunks, %zu expected, %zu orphans, %zu missing\n", osd.c_str(), on_node.size(),
              expected.size(), orphans, missing);
  return missing == 0 ? 0 : 1;
}

int MetricsCommand(Admin& admin, const std::string& endpoint) {
  std::string text;
  Status s = admin.CallNode(endpoint, objstore::chunk_methods::kMetrics, "", &text);
  if (!s.ok()) return Fail(s);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  Admin admin;
  if (args.size() >= 2 && args[0] == "--gateway") {
    admin.gateway = args[1];
    args.erase(args.begin(), args.begin() + 2);
  }
  if (args.empty()) return BadUsage();
  const std::string command = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "bucket") return BucketCommand(admin, rest);
  if (command == "object") return ObjectCommand(admin, rest);
  if (command == "chunk") return ChunkCommand(admin, rest);
  if (command == "osd" && rest.size() >= 2 && rest[0] == "ping") {
    return PingCommand(admin, std::vector<std::string>(rest.begin() + 1, rest.end()));
  }
  if (command == "placement") return PlacementCommand(rest);
  if (command == "scrub" && rest.size() == 1) return ScrubCommand(admin, rest[0]);
  if (command == "metrics" && rest.size() == 1) return MetricsCommand(admin, rest[0]);
  if (command == "checkpoint" && rest.empty()) {
    Status s = admin.Client().Checkpoint();
    return s.ok() ? 0 : Fail(s);
  }
  return BadUsage();
}
