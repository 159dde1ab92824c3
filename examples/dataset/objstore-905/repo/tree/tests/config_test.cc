#include "config/config.h"

#include <iostream>

#include "test_util.h"

using objstore::config::GatewayConfig;
using objstore::config::IniFile;

int main() {
  IniFile ini;
  CHECK_OK(IniFile::Parse(R"(# gateway-3
[gateway]
listen = 0.0.0.0:8700
metadata_dir = "/var/lib/objstore/meta"

[cluster]
osds = osd-1:7100, osd-2:7100, osd-3:7100 ; three for the test
write_quorum = 2
chunk_size = 64KiB

[rpc]
read_timeout = 2s
max_idle_per_endpoint = 8
colour = blue
)",
                          "gateway.ini", &ini));
  GatewayConfig cfg;
  CHECK_OK(objstore::config::ReadGatewayConfig(ini, &cfg));
  CHECK_OK(objstore::config::Validate(cfg));
  CHECK(cfg.cluster.osds.size() == 3 && cfg.cluster.osds[2] == "osd-3:7100");
  CHECK(cfg.cluster.chunk_size == 65536);
  CHECK(cfg.rpc.read_timeout == std::chrono::seconds(2));
  CHECK(cfg.rpc.max_idle_per_endpoint == 8);
  CHECK(cfg.metadata_dir == "/var/lib/objstore/meta");
  CHECK(ini.Unread().size() == 1 && ini.Unread()[0] == "rpc.colour");

  // A quorum above the replication factor is refused.
  cfg.cluster.write_quorum = 4;
  CHECK(objstore::config::Validate(cfg).code() == objstore::Code::kInvalidArgument);

  // Bad values name the file and line.
  IniFile bad;
  CHECK_OK(IniFile::Parse("[rpc]\nread_timeout = soon\n", "bad.ini", &bad));
  GatewayConfig ignored;
  objstore::Status s = objstore::config::ReadGatewayConfig(bad, &ignored);
  CHECK(!s.ok() && s.message().find("bad.ini:2") == 0);
  CHECK(!IniFile::Parse("[cluster\n", "x.ini", &bad).ok());

  std::cout << "config_test passed" << std::endl;
  return 0;
}
