#pragma once

// Methods the gateway serves to clients (objstore::client::ObjectClient, objstore-admin).
// Payloads are rpc::WireWriter fields in the order listed; objects travel as
// EncodeObjectMeta, buckets as EncodeBucket.
//   CreateBucket  name, owner                              -> ""
//   DeleteBucket  name                                     -> ""
//   ListBuckets   ""                                       -> u32 count, buckets
//   PutObject     bucket, key, content type, body          -> object meta
//   GetObject     bucket, key                              -> object meta, body
//   HeadObject    bucket, key                              -> object meta
//   DeleteObject  bucket, key                              -> ""
//   ListObjects   bucket, prefix, start after, u32 limit   -> u32 count, metas, bool truncated
//   Checkpoint    ""                                       -> ""
//   Metrics       ""                                       -> text exposition
namespace objstore::gateway_methods {
inline constexpr const char* kCreateBucket = "CreateBucket";
inline constexpr const char* kDeleteBucket = "DeleteBucket";
inline constexpr const char* kListBuckets = "ListBuckets";
inline constexpr const char* kPutObject = "PutObject";
inline constexpr const char* kGetObject = "GetObject";
inline constexpr const char* kHeadObject = "HeadObject";
inline constexpr const char* kDeleteObject = "DeleteObject";
inline constexpr const char* kListObjects = "ListObjects";
inline constexpr const char* kCheckpoint = "Checkpoint";
inline constexpr const char* kMetrics = "Metrics";

// ListObjects answers at most this many objects per call.
inline constexpr unsigned kMaxListLimit = 1000;
}  // namespace objstore::gateway_methods
