#include "rpc/connection.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace objstore::rpc {

namespace {

void PutU32(std::string* out, uint32_t v) {
  uint32_t be = htonl(v);
  out->append(reinterpret_cast<const char*>(&be), 4);
}

void PutU64(std::string* out, uint64_t v) {
  PutU32(out, static_cast<uint32_t>(v >> 32));
  PutU32(out, static_cast<uint32_t>(v));
}

uint32_t GetU32(const char* p) {
  uint32_t be;
  std::memcpy(&be, p, 4);
  return ntohl(be);
}

}  // namespace

Connection::Connection(std::string endpoint, int fd) : endpoint_(std::move(endpoint)), fd_(fd) {}

Connection::~Connection() {
  if (fd_ >= 0) ::close(fd_);
}

Status Connection::Dial(const std::string& endpoint, std::chrono::milliseconds timeout, Connection** out) {
  auto colon = endpoint.rfind(':');
  if (colon == std::string::npos) return Status::Internal("bad endpoint " + endpoint);
  std::string host = endpoint.substr(0, colon);
  std::string port = endpoint.substr(colon + 1);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    return Status::Unavailable(endpoint + ": " + gai_strerror(rc));
  }
  int fd = ::socket(res->ai_family, res->ai_socktype, res->ai_protocol);
  int rc = ::connect(fd, res->ai_addr, res->ai_addrlen);
  freeaddrinfo(res);
  if (rc != 0) {
    ::close(fd);
    return Status::Unavailable(endpoint + ": " + std::strerror(errno));
  }
  (void)timeout;
  *out = new Connection(endpoint, fd);
  return Status::Ok();
}

Status Connection::WriteFrame(const Frame& frame) {
  std::string buf;
  PutU64(&buf, frame.request_id);
  PutU32(&buf, static_cast<uint32_t>(frame.method.size()));
  PutU32(&buf, static_cast<uint32_t>(frame.payload.size()));
  buf += frame.method;
  buf += frame.payload;
  size_t off = 0;
  while (off < buf.size()) {
    ssize_t n = ::send(fd_, buf.data() + off, buf.size() - off, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      healthy_ = false;
      return Status::Unavailable(endpoint_ + ": send: " + std::strerror(errno));
    }
    off += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status Connection::ReadExact(char* buf, size_t n, std::chrono::steady_clock::time_point deadline) {
  size_t off = 0;
  while (off < n) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Status::DeadlineExceeded(endpoint_ + ": read timed out");
    pollfd pfd{fd_, POLLIN, 0};
    int rc = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (rc == 0) return Status::DeadlineExceeded(endpoint_ + ": read timed out");
    if (rc < 0) {
      if (errno == EINTR) continue;
      healthy_ = false;
      return Status::Unavailable(endpoint_ + ": poll: " + std::strerror(errno));
    }
    ssize_t got = ::recv(fd_, buf + off, n - off, 0);
    if (got <= 0) {
      healthy_ = false;
      return Status::Unavailable(endpoint_ + ": connection closed");
    }
    off += static_cast<size_t>(got);
  }
  return Status::Ok();
}

Status Connection::ReadFrame(std::chrono::steady_clock::time_point deadline, Frame* frame) {
  char header[16];
  if (Status s = ReadExact(header, sizeof header, deadline); !s.ok()) return s;
  frame->request_id = (static_cast<uint64_t>(GetU32(header)) << 32) | GetU32(header + 4);
  uint32_t method_len = GetU32(header + 8);
  uint32_t payload_len = GetU32(header + 12);
  std::vector<char> body(method_len + payload_len);
  if (Status s = ReadExact(body.data(), body.size(), deadline); !s.ok()) return s;
  frame->method.assign(body.data(), method_len);
  frame->payload.assign(body.data() + method_len, payload_len);
  return Status::Ok();
}

}  // namespace objstore::rpc
