#include "rpc/server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/logging.h"
#include "common/strings.h"

namespace objstore::rpc {

namespace {

std::string PeerName(const sockaddr_storage& addr) {
  char host[NI_MAXHOST];
  char port[NI_MAXSERV];
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&addr), sizeof addr, host, sizeof host, port, sizeof port,
                  NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return "unknown";
  }
  return std::string(host) + ":" + port;
}

Status ListenOn(const std::string& endpoint, int* fd_out, uint16_t* port_out) {
  std::string host;
  uint16_t port = 0;
  // Port 0 is allowed here (tests); SplitHostPort rejects it, so parse by hand.
  size_t colon = endpoint.rfind(':');
  if (colon == std::string::npos) return Status::InvalidArgument("bad listen address " + endpoint);
  host = endpoint.substr(0, colon);
  uint64_t p = 0;
  if (!ParseUint64(endpoint.substr(colon + 1), &p) || p > 65535) {
    return Status::InvalidArgument("bad port in listen address " + endpoint);
  }
  port = static_cast<uint16_t>(p);

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &res); rc != 0) {
    return Status::InvalidArgument(endpoint + ": " + gai_strerror(rc));
  }
  int fd = ::socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
  if (fd < 0) {
    freeaddrinfo(res);
    return Status::Internal(std::string("socket: ") + std::strerror(errno));
  }
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, res->ai_addr, res->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
    int err = errno;
    freeaddrinfo(res);
    ::close(fd);
    return Status::Unavailable("listen on " + endpoint + ": " + std::strerror(err));
  }
  freeaddrinfo(res);
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  if (bound.ss_family == AF_INET6) {
    *port_out = ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  } else {
    *port_out = ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  }
  *fd_out = fd;
  return Status::Ok();
}

}  // namespace

RpcServer::RpcServer(ServerOptions options)
    : options_(std::move(options)), metrics_(options_.metrics ? options_.metrics : metrics::DefaultRegistry()) {
  connections_gauge_ = metrics_->GetGauge("rpc_server_connections", "Open client connections");
  rejected_ = metrics_->GetCounter("rpc_server_rejected_connections_total",
                                   "Connections closed at accept because max_connections was reached");
}

RpcServer::~RpcServer() { Stop(); }

void RpcServer::Register(const std::string& method, Handler handler) {
  MethodEntry entry;
  entry.handler = std::move(handler);
  entry.requests = metrics_->GetCounter("rpc_server_requests_total", "Requests received", {{"method", method}});
  entry.latency = metrics_->GetHistogram("rpc_server_latency_seconds", "Time from request read to response written",
                                         metrics::LatencyBounds(), {{"method", method}});
  methods_[method] = std::move(entry);
}

Status RpcServer::Start() {
  OBJSTORE_RETURN_IF_ERROR(ListenOn(options_.listen, &listen_fd_, &port_));
  OBJSTORE_LOG(Info, "rpc") << "listening on " << options_.listen << " (port " << port_ << ")";
  acceptor_ = std::thread([this] { AcceptLoop(); });
  return Status::Ok();
}

void RpcServer::Stop() {
  if (stopping_.exchange(true)) return;
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
  std::vector<Worker> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Wakes workers blocked in poll(); each closes its own descriptor when it returns.
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    workers.swap(workers_);
  }
  for (auto& w : workers) w.thread.join();
}

size_t RpcServer::active_connections() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_fds_.size();
}

void RpcServer::ReapFinishedWorkers() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->done->load()) {
      it->thread.join();
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
}

void RpcServer::AcceptLoop() {
  while (!stopping_.load()) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (!stopping_.load()) OBJSTORE_LOG(Error, "rpc") << "accept: " << std::strerror(errno);
      return;
    }
    ReapFinishedWorkers();
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::lock_guard<std::mutex> lock(mu_);
    if (open_fds_.size() >= options_.max_connections) {
      rejected_->Inc();
      ::close(fd);
      continue;
    }
    open_fds_.insert(fd);
    auto done = std::make_shared<std::atomic<bool>>(false);
    workers_.push_back(Worker{std::thread([this, fd, peer = PeerName(addr), done] { Serve(fd, peer, done); }), done});
  }
}

void RpcServer::Serve(int fd, std::string peer, std::shared_ptr<std::atomic<bool>> done) {
  connections_gauge_->Add(1);
  auto conn = std::make_unique<Connection>(peer, fd);
  while (!stopping_.load()) {
    Frame request;
    Status s = conn->ReadFrame(std::chrono::steady_clock::now() + options_.idle_timeout, &request);
    if (!s.ok()) {
      if (s.code() == Code::kDeadlineExceeded) OBJSTORE_LOG(Debug, "rpc") << "closing idle connection from " << peer;
      break;
    }
    Frame response = Dispatch(request);
    if (!conn->WriteFrame(response).ok()) break;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    open_fds_.erase(fd);
  }
  conn.reset();  // closes fd, after it left open_fds_ so Stop() never shuts down a reused number
  connections_gauge_->Add(-1);
  done->store(true);
}

Frame RpcServer::Dispatch(const Frame& request) {
  Frame response;
  response.request_id = request.request_id;
  auto it = methods_.find(request.method);
  Status s;
  if (it == methods_.end()) {
    s = Status::NotFound("no method " + request.method);
  } else {
    it->second.requests->Inc();
    metrics::ScopedTimer timer(it->second.latency);
    s = it->second.handler(request.payload, &response.payload);
  }
  if (s.ok()) {
    response.method = request.method;
  } else {
    CountError(request.method, s);
    response.method = "error";
    response.payload = s.ToString();
  }
  return response;
}

void RpcServer::CountError(const std::string& method, const Status& s) {
  std::string code = s.ToString().substr(0, s.ToString().find(':'));
  metrics_->GetCounter("rpc_server_errors_total", "Requests answered with an error", {{"method", method}, {"code", code}})
      ->Inc();
}

}  // namespace objstore::rpc
