#include "store/placement.h"

#include <algorithm>
#include <utility>

namespace objstore {

namespace {

uint64_t Fnv1a64(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Finalizer of SplitMix64: spreads FNV's weak low bits before scores are compared.
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

Placement::Placement(std::vector<std::string> osds, int replication_factor)
    : osds_(std::move(osds)), replication_factor_(replication_factor) {
  std::sort(osds_.begin(), osds_.end());
  osds_.erase(std::unique(osds_.begin(), osds_.end()), osds_.end());
}

uint64_t Placement::Score(std::string_view osd, std::string_view object) {
  return Mix(Fnv1a64(object, Fnv1a64(osd) ^ 0x9e3779b97f4a7c15ull));
}

std::vector<std::string> Placement::ReplicasFor(std::string_view object) const {
  std::vector<std::pair<uint64_t, const std::string*>> scored;
  scored.reserve(osds_.size());
  for (const auto& osd : osds_) {
    if (!IsOut(osd)) scored.emplace_back(Score(osd, object), &osd);
  }
  size_t n = std::min(scored.size(), static_cast<size_t>(replication_factor_));
  // Ties are broken by name so every gateway computes the same order.
  std::partial_sort(scored.begin(), scored.begin() + static_cast<long>(n), scored.end(),
                    [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : *a.second < *b.second; });
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(*scored[i].second);
  return out;
}

void Placement::MarkOut(const std::string& osd) { out_.insert(osd); }

void Placement::MarkIn(const std::string& osd) { out_.erase(osd); }

}  // namespace objstore
