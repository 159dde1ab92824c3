#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace objstore {

// Chooses the storage nodes of an object by rendezvous (highest random weight) hashing:
// every node gets a score per object and the highest `replication_factor` scores win. Adding
// or removing one node moves only the objects that node wins or loses.
class Placement {
 public:
  Placement(std::vector<std::string> osds, int replication_factor);

  // The replicas of an object, best score first; the first is the primary that reads try
  // first. Nodes marked out are skipped and the next best take their place.
  std::vector<std::string> ReplicasFor(std::string_view object) const;

  // Takes a node out of placement (operator drain) or puts it back.
  void MarkOut(const std::string& osd);
  void MarkIn(const std::string& osd);
  bool IsOut(const std::string& osd) const { return out_.count(osd) != 0; }

  const std::vector<std::string>& osds() const { return osds_; }
  int replication_factor() const { return replication_factor_; }

  // The score of a node for an object; exposed for the admin tool's "placement" command.
  static uint64_t Score(std::string_view osd, std::string_view object);

 private:
  std::vector<std::string> osds_;
  int replication_factor_;
  std::set<std::string> out_;
};

}  // namespace objstore
