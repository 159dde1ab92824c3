#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace objstore::metrics {

// Label pairs of one series, for example {{"method", "PutChunk"}}. Order is kept as given.
using Labels = std::vector<std::pair<std::string, std::string>>;

class Counter {
 public:
  void Inc(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

class Gauge {
 public:
  void Set(int64_t v) { value_.store(v, std::memory_order_relaxed); }
  void Add(int64_t d) { value_.fetch_add(d, std::memory_order_relaxed); }
  int64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

// A histogram with fixed upper bounds. Observations above the last bound land in the
// implicit +Inf bucket.
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);

  void Observe(double v);

  struct Snapshot {
    std::vector<double> bounds;
    std::vector<uint64_t> counts;  // per bucket, not cumulative; bounds.size() + 1 entries
    uint64_t count = 0;
    double sum = 0;
    // The smallest bound below which at least q of the observations fall (q in [0, 1]);
    // +Inf observations report the last bound.
    double Quantile(double q) const;
  };
  Snapshot snapshot() const;

 private:
  std::vector<double> bounds_;
  mutable std::mutex mu_;
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  double sum_ = 0;
};

// Bounds for RPC and disk latencies in seconds: 1 ms to 10 s.
std::vector<double> LatencyBounds();

// Observes the elapsed time in seconds into a histogram when it goes out of scope.
class ScopedTimer {
 public:
  explicit ScopedTimer(Histogram* h) : h_(h), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer();
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  Histogram* h_;
  std::chrono::steady_clock::time_point start_;
};

// Owns every metric of a process. Getters create the series on first use and return the
// same object afterwards; pointers stay valid for the registry's lifetime.
class Registry {
 public:
  Counter* GetCounter(const std::string& name, const std::string& help, const Labels& labels = {});
  Gauge* GetGauge(const std::string& name, const std::string& help, const Labels& labels = {});
  Histogram* GetHistogram(const std::string& name, const std::string& help, const std::vector<double>& bounds,
                          const Labels& labels = {});

  // The Prometheus text exposition format (version 0.0.4), families sorted by name.
  std::string RenderText() const;

 private:
  enum class Kind { kCounter, kGauge, kHistogram };
  struct Family {
    Kind kind;
    std::string help;
    std::map<std::string, std::unique_ptr<Counter>> counters;
    std::map<std::string, std::unique_ptr<Gauge>> gauges;
    std::map<std::string, std::unique_ptr<Histogram>> histograms;
  };

  Family* FamilyFor(const std::string& name, const std::string& help, Kind kind);
  static void RenderHistogram(const std::string& name, const std::string& labels, const Histogram& h,
                              std::string* out);

  mutable std::mutex mu_;
  std::map<std::string, Family> families_;
};

// The process-wide registry the servers and the gateway report to.
Registry* DefaultRegistry();

// {method="PutChunk",code="UNAVAILABLE"}; empty for no labels. Values are escaped.
std::string FormatLabels(const Labels& labels);

}  // namespace objstore::metrics
