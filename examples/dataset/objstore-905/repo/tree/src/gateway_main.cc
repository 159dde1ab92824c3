#include <iostream>
#include <string>
#include <vector>

#include "rpc/connection_pool.h"
#include "rpc/rpc_client.h"
#include "store/replica_writer.h"

// A minimal gateway: reads "<object> <chunk index> <data>" lines from stdin and writes each
// chunk to the three replicas given on the command line.
int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: objstore-gateway <replica1> <replica2> <replica3>" << std::endl;
    return 2;
  }
  std::vector<std::string> replicas(argv + 1, argv + argc);
  objstore::rpc::ConnectionPool pool;
  objstore::rpc::RpcClient client(&pool);
  objstore::ReplicaWriter writer(&client, 2);

  std::string object;
  uint32_t index;
  std::string data;
  while (std::cin >> object >> index >> data) {
    objstore::Status s = writer.WriteChunk({object, index}, data, replicas);
    std::cout << object << ":" << index << " " << s.ToString() << std::endl;
  }
  return 0;
}
