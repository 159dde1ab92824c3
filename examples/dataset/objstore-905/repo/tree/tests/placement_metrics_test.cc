#include <iostream>
#include <map>

#include "metrics/metrics.h"
#include "store/placement.h"
#include "test_util.h"

using namespace objstore;

void TestPlacementIsStableAndSpread() {
  std::vector<std::string> osds;
  for (int i = 1; i <= 12; ++i) osds.push_back("osd-" + std::to_string(i) + ":7100");
  Placement placement(osds, 3);
  std::map<std::string, int> primaries;
  for (int i = 0; i < 1200; ++i) {
    auto replicas = placement.ReplicasFor("obj" + std::to_string(i));
    CHECK(replicas.size() == 3 && replicas[0] != replicas[1] && replicas[1] != replicas[2]);
    primaries[replicas[0]]++;
  }
  CHECK(primaries.size() == 12);
  for (const auto& [osd, n] : primaries) CHECK(n > 50 && n < 150);

  // Draining one node moves only the objects that had it as a replica.
  auto before = placement.ReplicasFor("9f2e61c0");
  placement.MarkOut(before[1]);
  auto after = placement.ReplicasFor("9f2e61c0");
  CHECK(after[0] == before[0] && after[1] == before[2]);
}

void TestHistogramAndExposition() {
  metrics::Registry registry;
  auto* h = registry.GetHistogram("rpc_latency_seconds", "latency", {0.1, 1}, {{"method", "PutChunk"}});
  h->Observe(0.05);
  h->Observe(0.1);
  h->Observe(0.8);
  h->Observe(3);
  CHECK(h->snapshot().Quantile(0.5) == 0.1);
  registry.GetCounter("puts_total", "puts")->Inc(2);
  std::string text = registry.RenderText();
  CHECK(text.find("rpc_latency_seconds_bucket{method=\"PutChunk\",le=\"0.10000000000000001\"} 2\n") !=
        std::string::npos);
  CHECK(text.find("rpc_latency_seconds_bucket{method=\"PutChunk\",le=\"+Inf\"} 4\n") != std::string::npos);
  CHECK(text.find("# TYPE puts_total counter\nputs_total 2\n") != std::string::npos);
  CHECK(registry.GetGauge("puts_total", "wrong kind") == nullptr);
}

int main() {
  TestPlacementIsStableAndSpread();
  TestHistogramAndExposition();
  std::cout << "placement_metrics_test passed" << std::endl;
  return 0;
}
