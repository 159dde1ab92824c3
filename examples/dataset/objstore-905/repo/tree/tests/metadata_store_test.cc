#include "meta/metadata_store.h"

#include <iostream>

#include "test_util.h"

using namespace objstore;

ObjectMeta Object(const std::string& bucket, const std::string& key, const std::string& storage_id) {
  ObjectMeta m;
  m.bucket = bucket;
  m.key = key;
  m.storage_id = storage_id;
  m.size = 70000;
  m.chunk_size = 65536;
  m.chunk_checksums = {0x5be1c07a, 0x91c3aa08};
  m.replicas = {"osd-1:7100", "osd-3:7100", "osd-9:7100"};
  return m;
}

int main() {
  std::string dir = MakeTempDir();
  {
    MetadataStore store(dir);
    CHECK_OK(store.Open());
    CHECK_OK(store.CreateBucket({"media", "web", 1}));
    CHECK(store.CreateBucket({"media", "web", 2}).code() == Code::kAlreadyExists);
    CHECK(store.CreateBucket({"No_Caps", "web", 2}).code() == Code::kInvalidArgument);
    ObjectMeta replaced;
    bool had_old = true;
    CHECK_OK(store.PutObject(Object("media", "a/1.jpg", "00000001"), &replaced, &had_old));
    CHECK(!had_old);
    CHECK_OK(store.PutObject(Object("media", "a/2.jpg", "00000002"), &replaced, &had_old));
    CHECK_OK(store.Checkpoint());
    CHECK_OK(store.PutObject(Object("media", "a/1.jpg", "00000003"), &replaced, &had_old));
    CHECK(had_old && replaced.storage_id == "00000001");
    CHECK_OK(store.PutObject(Object("media", "b/1.jpg", "00000004"), &replaced, &had_old));
    CHECK(store.DeleteBucket("media").code() == Code::kFailedPrecondition);
  }
  // Reopening loads the snapshot and replays the log written after it.
  MetadataStore store(dir);
  CHECK_OK(store.Open());
  ObjectMeta got;
  CHECK_OK(store.GetObject("media", "a/1.jpg", &got));
  CHECK(got.storage_id == "00000003" && got.chunk_checksums.size() == 2 && got.replicas[1] == "osd-3:7100");

  ListResult page;
  CHECK_OK(store.ListObjects("media", "a/", "", 1, &page));
  CHECK(page.objects.size() == 1 && page.truncated && page.objects[0].key == "a/1.jpg");
  CHECK_OK(store.ListObjects("media", "a/", "a/1.jpg", 10, &page));
  CHECK(page.objects.size() == 1 && !page.truncated && page.objects[0].key == "a/2.jpg");

  ObjectMeta removed;
  CHECK_OK(store.DeleteObject("media", "b/1.jpg", &removed));
  CHECK(store.GetObject("media", "b/1.jpg", &got).code() == Code::kNotFound);
  RemoveTree(dir);
  std::cout << "metadata_store_test passed" << std::endl;
  return 0;
}
