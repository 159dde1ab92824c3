#include "client/object_client.h"

#include "gateway/gateway_protocol.h"
#include "rpc/wire.h"

namespace objstore::client {

namespace {

Status BadResponse(const char* method) { return Status::Internal(std::string("malformed ") + method + " response"); }

// The request of the methods that name one object.
std::string BucketKey(const std::string& bucket, const std::string& key) {
  rpc::WireWriter w;
  w.PutString(bucket);
  w.PutString(key);
  return w.Release();
}

}  // namespace

Status RemoteStatus(const Status& s) {
  if (s.code() != Code::kInternal) return s;
  static const struct {
    const char* name;
    Code code;
  } kCodes[] = {{"NOT_FOUND: ", Code::kNotFound},
                {"ALREADY_EXISTS: ", Code::kAlreadyExists},
                {"INVALID_ARGUMENT: ", Code::kInvalidArgument},
                {"FAILED_PRECONDITION: ", Code::kFailedPrecondition},
                {"UNAVAILABLE: ", Code::kUnavailable},
                {"DATA_LOSS: ", Code::kDataLoss},
                {"DEADLINE_EXCEEDED: ", Code::kDeadlineExceeded}};
  for (const auto& entry : kCodes) {
    size_t at = s.message().find(entry.name);
    if (at != std::string::npos) return Status(entry.code, s.message().substr(at + std::string(entry.name).size()));
  }
  return s;
}

ObjectClient::ObjectClient(ClientOptions options) : options_(std::move(options)), pool_(4), rpc_(&pool_) {}

Status ObjectClient::Invoke(const char* method, const std::string& request, std::string* response) {
  if (options_.gateways.empty()) return Status::InvalidArgument("no gateways configured");
  rpc::CallOptions call;
  call.timeout = options_.timeout;
  call.max_retries = options_.retries;
  Status last;
  // Start where the previous call ended so load spreads over the gateways.
  size_t start = next_gateway_.fetch_add(1);
  for (size_t i = 0; i < options_.gateways.size(); ++i) {
    const std::string& gateway = options_.gateways[(start + i) % options_.gateways.size()];
    last = rpc_.Call(gateway, method, request, response, call);
    if (last.code() != Code::kUnavailable) return RemoteStatus(last);
  }
  return last;
}

Status ObjectClient::CreateBucket(const std::string& name, const std::string& owner) {
  rpc::WireWriter w;
  w.PutString(name);
  w.PutString(owner);
  std::string resp;
  return Invoke(gateway_methods::kCreateBucket, w.data(), &resp);
}

Status ObjectClient::DeleteBucket(const std::string& name) {
  rpc::WireWriter w;
  w.PutString(name);
  std::string resp;
  return Invoke(gateway_methods::kDeleteBucket, w.data(), &resp);
}

Status ObjectClient::ListBuckets(std::vector<BucketInfo>* out) {
  std::string resp;
  OBJSTORE_RETURN_IF_ERROR(Invoke(gateway_methods::kListBuckets, "", &resp));
  rpc::WireReader r(resp);
  uint32_t n = r.GetU32();
  out->clear();
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    BucketInfo b;
    if (DecodeBucket(&r, &b)) out->push_back(std::move(b));
  }
  return r.done() ? Status::Ok() : BadResponse(gateway_methods::kListBuckets);
}

Status ObjectClient::Put(const std::string& bucket, const std::string& key, const std::string& data,
                         const std::string& content_type, ObjectMeta* meta) {
  rpc::WireWriter w;
  w.PutString(bucket);
  w.PutString(key);
  w.PutString(content_type);
  w.PutString(data);
  std::string resp;
  OBJSTORE_RETURN_IF_ERROR(Invoke(gateway_methods::kPutObject, w.data(), &resp));
  if (meta == nullptr) return Status::Ok();
  rpc::WireReader r(resp);
  return DecodeObjectMeta(&r, meta) && r.done() ? Status::Ok() : BadResponse(gateway_methods::kPutObject);
}

Status ObjectClient::Get(const std::string& bucket, const std::string& key, std::string* data, ObjectMeta* meta) {
  std::string resp;
  OBJSTORE_RETURN_IF_ERROR(Invoke(gateway_methods::kGetObject, BucketKey(bucket, key), &resp));
  rpc::WireReader r(resp);
  ObjectMeta decoded;
  if (!DecodeObjectMeta(&r, &decoded)) return BadResponse(gateway_methods::kGetObject);
  *data = r.GetString();
  if (!r.done()) return BadResponse(gateway_methods::kGetObject);
  if (meta != nullptr) *meta = std::move(decoded);
  return Status::Ok();
}

Status ObjectClient::Head(const std::string& bucket, const std::string& key, ObjectMeta* meta) {
  std::string resp;
  OBJSTORE_RETURN_IF_ERROR(Invoke(gateway_methods::kHeadObject, BucketKey(bucket, key), &resp));
  rpc::WireReader r(resp);
  return DecodeObjectMeta(&r, meta) && r.done() ? Status::Ok() : BadResponse(gateway_methods::kHeadObject);
}

Status ObjectClient::Delete(const std::string& bucket, const std::string& key) {
  std::string resp;
  return Invoke(gateway_methods::kDeleteObject, BucketKey(bucket, key), &resp);
}

Status ObjectClient::List(const std::string& bucket, const std::string& prefix,
                          const std::function<bool(const ObjectMeta&)>& fn) {
  std::string start_after;
  for (;;) {
    rpc::WireWriter w;
    w.PutString(bucket);
    w.PutString(prefix);
    w.PutString(start_after);
    w.PutU32(gateway_methods::kMaxListLimit);
    std::string resp;
    OBJSTORE_RETURN_IF_ERROR(Invoke(gateway_methods::kListObjects, w.data(), &resp));
    rpc::WireReader r(resp);
    uint32_t n = r.GetU32();
    for (uint32_t i = 0; i < n; ++i) {
      ObjectMeta meta;
      if (!DecodeObjectMeta(&r, &meta)) return BadResponse(gateway_methods::kListObjects);
      start_after = meta.key;
      if (!fn(meta)) return Status::Ok();
    }
    bool truncated = r.GetBool();
    if (!r.done()) return BadResponse(gateway_methods::kListObjects);
    if (!truncated || n == 0) return Status::Ok();
  }
}

Status ObjectClient::Checkpoint() {
  std::string resp;
  return Invoke(gateway_methods::kCheckpoint, "", &resp);
}

Status ObjectClient::FetchMetrics(std::string* text) { return Invoke(gateway_methods::kMetrics, "", text); }

}  // namespace objstore::client
