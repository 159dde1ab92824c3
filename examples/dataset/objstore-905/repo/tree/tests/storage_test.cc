// The chunk store and the journal on a real temporary directory.
#include <fcntl.h>
#include <unistd.h>

#include <iostream>
#include <vector>

#include "store/chunk_store.h"
#include "store/journal.h"
#include "test_util.h"

using namespace objstore;

void TestChunkRoundTripAndCorruption(const std::string& dir) {
  ChunkStore store({dir + "/chunks", /*sync=*/false});
  CHECK_OK(store.Open());
  ChunkId id{"9f2e61c0", 13};
  CHECK_OK(store.Put(id, "hello chunk"));
  std::string data;
  CHECK_OK(store.Get(id, &data));
  CHECK(data == "hello chunk");

  std::vector<std::string> listed;
  CHECK_OK(store.List("9f", [&](const ChunkId& c) { listed.push_back(c.ToString()); }));
  CHECK(listed.size() == 1 && listed[0] == "9f2e61c0:13");

  // Flip one byte of the data: the read must fail, not return other bytes.
  int fd = ::open(store.PathOf(id).c_str(), O_WRONLY);
  CHECK(fd >= 0);
  CHECK(::pwrite(fd, "J", 1, 16) == 1);
  ::close(fd);
  CHECK(store.Get(id, &data).code() == Code::kDataLoss);

  CHECK_OK(store.Delete(id));
  CHECK(store.Get(id, &data).code() == Code::kNotFound);
}

void TestJournalReplayCutsTornTail(const std::string& dir) {
  metrics::Registry registry;
  JournalOptions options{dir + "/journal", std::chrono::milliseconds(500), 1ull << 20, &registry};
  {
    Journal journal(options);
    CHECK_OK(journal.Open([](const JournalRecord&) {}));
    CHECK_OK(journal.Append({JournalOp::kPutBegin, {"41aa07d2", 0}, 65536, 0x1f2c3d4e}, true));
    CHECK_OK(journal.Append({JournalOp::kPutDone, {"41aa07d2", 0}, 65536, 0x1f2c3d4e}, true));
    CHECK_OK(journal.Append({JournalOp::kPutBegin, {"41aa07d2", 1}, 100, 7}, true));
    CHECK(journal.puts_in_flight() == 1);
  }
  // Half a record, as a crash in the middle of a write leaves it.
  int fd = ::open(options.path.c_str(), O_WRONLY | O_APPEND);
  CHECK(::write(fd, "\0\0\0\x30garbage", 11) == 11);
  ::close(fd);

  std::vector<JournalRecord> seen;
  Journal journal(options);
  CHECK_OK(journal.Open([&](const JournalRecord& r) { seen.push_back(r); }));
  CHECK(seen.size() == 3);
  CHECK(seen[2].op == JournalOp::kPutBegin && seen[2].id.index == 1 && seen[2].size == 100);
  CHECK_OK(journal.Append({JournalOp::kDelete, {"41aa07d2", 1}, 0, 0}, true));
}

int main() {
  std::string dir = MakeTempDir();
  TestChunkRoundTripAndCorruption(dir);
  TestJournalReplayCutsTornTail(dir);
  RemoveTree(dir);
  std::cout << "storage_test passed" << std::endl;
  return 0;
}
