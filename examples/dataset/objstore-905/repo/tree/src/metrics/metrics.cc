#include "metrics/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace objstore::metrics {

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {
  std::sort(bounds_.begin(), bounds_.end());
}

void Histogram::Observe(double v) {
  size_t bucket = std::upper_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin();
  // upper_bound puts v == bound in the next bucket; Prometheus buckets are "<= le".
  if (bucket > 0 && bounds_[bucket - 1] == v) --bucket;
  std::lock_guard<std::mutex> lock(mu_);
  counts_[bucket]++;
  count_++;
  sum_ += v;
}

Histogram::Snapshot Histogram::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Snapshot{bounds_, counts_, count_, sum_};
}

double Histogram::Snapshot::Quantile(double q) const {
  if (count == 0 || bounds.empty()) return 0;
  uint64_t rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count)));
  uint64_t seen = 0;
  for (size_t i = 0; i < bounds.size(); ++i) {
    seen += counts[i];
    if (seen >= rank && seen > 0) return bounds[i];
  }
  return bounds.back();
}

std::vector<double> LatencyBounds() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.8, 1, 2.5, 5, 10};
}

ScopedTimer::~ScopedTimer() {
  if (h_ == nullptr) return;
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
  h_->Observe(elapsed.count());
}

namespace {

void AppendEscaped(const std::string& value, std::string* out) {
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out->push_back('\\');
      out->push_back(c);
    } else if (c == '\n') {
      out->append("\\n");
    } else {
      out->push_back(c);
    }
  }
}

std::string FormatNumber(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Adds one more label to an already formatted label set.
std::string WithLabel(const std::string& labels, const std::string& name, const std::string& value) {
  std::string extra = name + "=\"" + value + "\"";
  if (labels.empty()) return "{" + extra + "}";
  return labels.substr(0, labels.size() - 1) + "," + extra + "}";
}

const char* KindName(int kind) {
  static const char* names[] = {"counter", "gauge", "histogram"};
  return names[kind];
}

}  // namespace

std::string FormatLabels(const Labels& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ',';
    out += labels[i].first;
    out += "=\"";
    AppendEscaped(labels[i].second, &out);
    out += '"';
  }
  out += '}';
  return out;
}

Registry::Family* Registry::FamilyFor(const std::string& name, const std::string& help, Kind kind) {
  auto [it, inserted] = families_.try_emplace(name);
  if (inserted) {
    it->second.kind = kind;
    it->second.help = help;
  }
  // A name registered as two kinds is a programming error; keep the first registration.
  return it->second.kind == kind ? &it->second : nullptr;
}

Counter* Registry::GetCounter(const std::string& name, const std::string& help, const Labels& labels) {
  std::lock_guard<std::mutex> lock(mu_);
  Family* family = FamilyFor(name, help, Kind::kCounter);
  if (family == nullptr) return nullptr;
  auto& slot = family->counters[FormatLabels(labels)];
  if (!slot) slot = std::make_unique<Counter>();
  return slot.get();
}

Gauge* Registry::GetGauge(const std::string& name, const std::string& help, const Labels& labels) {
  std::lock_guard<std::mutex> lock(mu_);
  Family* family = FamilyFor(name, help, Kind::kGauge);
  if (family == nullptr) return nullptr;
  auto& slot = family->gauges[FormatLabels(labels)];
  if (!slot) slot = std::make_unique<Gauge>();
  return slot.get();
}

Histogram* Registry::GetHistogram(const std::string& name, const std::string& help, const std::vector<double>& bounds,
                                  const Labels& labels) {
  std::lock_guard<std::mutex> lock(mu_);
  Family* family = FamilyFor(name, help, Kind::kHistogram);
  if (family == nullptr) return nullptr;
  auto& slot = family->histograms[FormatLabels(labels)];
  if (!slot) slot = std::make_unique<Histogram>(bounds);
  return slot.get();
}

void Registry::RenderHistogram(const std::string& name, const std::string& labels, const Histogram& h,
                               std::string* out) {
  Histogram::Snapshot snap = h.snapshot();
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= snap.bounds.size(); ++i) {
    cumulative += snap.counts[i];
    std::string le = i < snap.bounds.size() ? FormatNumber(snap.bounds[i]) : "+Inf";
    *out += name + "_bucket" + WithLabel(labels, "le", le) + " " + std::to_string(cumulative) + "\n";
  }
  *out += name + "_sum" + labels + " " + FormatNumber(snap.sum) + "\n";
  *out += name + "_count" + labels + " " + std::to_string(snap.count) + "\n";
}

std::string Registry::RenderText() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (const auto& [name, family] : families_) {
    out += "# HELP " + name + " " + family.help + "\n";
    out += "# TYPE " + name + " " + KindName(static_cast<int>(family.kind)) + "\n";
    for (const auto& [labels, c] : family.counters) out += name + labels + " " + std::to_string(c->value()) + "\n";
    for (const auto& [labels, g] : family.gauges) out += name + labels + " " + std::to_string(g->value()) + "\n";
    for (const auto& [labels, h] : family.histograms) RenderHistogram(name, labels, *h, &out);
  }
  return out;
}

Registry* DefaultRegistry() {
  static Registry* registry = new Registry();
  return registry;
}

}  // namespace objstore::metrics
