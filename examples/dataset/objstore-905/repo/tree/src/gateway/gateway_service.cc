#include "gateway/gateway_service.h"

#include <algorithm>
#include <chrono>

#include "common/logging.h"
#include "gateway/gateway_protocol.h"
#include "rpc/wire.h"

namespace objstore {

namespace {

Status Malformed(const char* method) { return Status::InvalidArgument(std::string("malformed ") + method + " request"); }

// Reads "bucket, key" and checks nothing follows.
bool ReadBucketKey(const std::string& req, std::string* bucket, std::string* key) {
  rpc::WireReader r(req);
  *bucket = r.GetString();
  *key = r.GetString();
  return r.done();
}

}  // namespace

void GatewayService::RegisterWith(rpc::RpcServer* server) {
  using namespace gateway_methods;
  auto bind = [this](Status (GatewayService::*fn)(const std::string&, std::string*)) {
    return [this, fn](const std::string& req, std::string* resp) { return (this->*fn)(req, resp); };
  };
  server->Register(kCreateBucket, bind(&GatewayService::CreateBucket));
  server->Register(kDeleteBucket, bind(&GatewayService::DeleteBucket));
  server->Register(kListBuckets, bind(&GatewayService::ListBuckets));
  server->Register(kPutObject, bind(&GatewayService::PutObject));
  server->Register(kGetObject, bind(&GatewayService::GetObject));
  server->Register(kHeadObject, bind(&GatewayService::HeadObject));
  server->Register(kDeleteObject, bind(&GatewayService::DeleteObject));
  server->Register(kListObjects, bind(&GatewayService::ListObjects));
  server->Register(kCheckpoint, [this](const std::string&, std::string*) { return meta_->Checkpoint(); });
  server->Register(kMetrics, [this](const std::string&, std::string* resp) {
    *resp = metrics_->RenderText();
    return Status::Ok();
  });
}

Status GatewayService::CreateBucket(const std::string& req, std::string* resp) {
  rpc::WireReader r(req);
  BucketInfo info;
  info.name = r.GetString();
  info.owner = r.GetString();
  if (!r.done()) return Malformed(gateway_methods::kCreateBucket);
  info.created = std::chrono::duration_cast<std::chrono::seconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
  OBJSTORE_RETURN_IF_ERROR(meta_->CreateBucket(info));
  OBJSTORE_LOG(Info, "gateway") << "created bucket " << info.name << " for " << info.owner;
  resp->clear();
  return Status::Ok();
}

Status GatewayService::DeleteBucket(const std::string& req, std::string* resp) {
  rpc::WireReader r(req);
  std::string name = r.GetString();
  if (!r.done()) return Malformed(gateway_methods::kDeleteBucket);
  OBJSTORE_RETURN_IF_ERROR(meta_->DeleteBucket(name));
  OBJSTORE_LOG(Info, "gateway") << "deleted bucket " << name;
  resp->clear();
  return Status::Ok();
}

Status GatewayService::ListBuckets(const std::string&, std::string* resp) {
  std::vector<BucketInfo> buckets = meta_->ListBuckets();
  rpc::WireWriter w;
  w.PutU32(static_cast<uint32_t>(buckets.size()));
  for (const auto& b : buckets) EncodeBucket(b, &w);
  *resp = w.Release();
  return Status::Ok();
}

Status GatewayService::PutObject(const std::string& req, std::string* resp) {
  rpc::WireReader r(req);
  std::string bucket = r.GetString();
  std::string key = r.GetString();
  std::string content_type = r.GetString();
  std::string body = r.GetString();
  if (!r.done()) return Malformed(gateway_methods::kPutObject);
  ObjectMeta meta;
  // Fail before any chunk is written when the bucket does not exist.
  ListResult probe;
  OBJSTORE_RETURN_IF_ERROR(meta_->ListObjects(bucket, "", "", 0, &probe));
  OBJSTORE_RETURN_IF_ERROR(objects_->PutObject(bucket, key, body, content_type, &meta));
  rpc::WireWriter w;
  EncodeObjectMeta(meta, &w);
  *resp = w.Release();
  return Status::Ok();
}

Status GatewayService::GetObject(const std::string& req, std::string* resp) {
  std::string bucket, key;
  if (!ReadBucketKey(req, &bucket, &key)) return Malformed(gateway_methods::kGetObject);
  ObjectMeta meta;
  std::string body;
  OBJSTORE_RETURN_IF_ERROR(objects_->GetObject(bucket, key, &meta, &body));
  rpc::WireWriter w;
  EncodeObjectMeta(meta, &w);
  w.PutString(body);
  *resp = w.Release();
  return Status::Ok();
}

Status GatewayService::HeadObject(const std::string& req, std::string* resp) {
  std::string bucket, key;
  if (!ReadBucketKey(req, &bucket, &key)) return Malformed(gateway_methods::kHeadObject);
  ObjectMeta meta;
  OBJSTORE_RETURN_IF_ERROR(meta_->GetObject(bucket, key, &meta));
  rpc::WireWriter w;
  EncodeObjectMeta(meta, &w);
  *resp = w.Release();
  return Status::Ok();
}

Status GatewayService::DeleteObject(const std::string& req, std::string* resp) {
  std::string bucket, key;
  if (!ReadBucketKey(req, &bucket, &key)) return Malformed(gateway_methods::kDeleteObject);
  OBJSTORE_RETURN_IF_ERROR(objects_->DeleteObject(bucket, key));
  resp->clear();
  return Status::Ok();
}

Status GatewayService::ListObjects(const std::string& req, std::string* resp) {
  rpc::WireReader r(req);
  std::string bucket = r.GetString();
  std::string prefix = r.GetString();
  std::string start_after = r.GetString();
  uint32_t limit = r.GetU32();
  if (!r.done()) return Malformed(gateway_methods::kListObjects);
  if (limit == 0 || limit > gateway_methods::kMaxListLimit) limit = gateway_methods::kMaxListLimit;
  ListResult result;
  OBJSTORE_RETURN_IF_ERROR(meta_->ListObjects(bucket, prefix, start_after, limit, &result));
  rpc::WireWriter w;
  w.PutU32(static_cast<uint32_t>(result.objects.size()));
  for (const auto& m : result.objects) EncodeObjectMeta(m, &w);
  w.PutBool(result.truncated);
  *resp = w.Release();
  return Status::Ok();
}

}  // namespace objstore
