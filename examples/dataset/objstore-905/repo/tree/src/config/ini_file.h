#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace objstore::config {

// An INI file: "[section]" headers, "key = value" lines, '#' and ';' comments. Keys before
// the first header belong to the section "". Later duplicates of a key replace earlier ones.
class IniFile {
 public:
  static Status Parse(std::string_view text, const std::string& origin, IniFile* out);
  static Status Load(const std::string& path, IniFile* out);

  // Returns the value or nullptr, and remembers that the key was read.
  const std::string* Get(const std::string& section, const std::string& key) const;

  // Every "section.key" present but never read by Get(): usually a typo in the file.
  std::vector<std::string> Unread() const;

  // "<origin>:<line>" of a key, for error messages; origin alone when the key is absent.
  std::string Where(const std::string& section, const std::string& key) const;

 private:
  struct Value {
    std::string text;
    int line = 0;
  };

  std::string origin_;
  std::map<std::string, std::map<std::string, Value>> sections_;
  mutable std::set<std::string> read_;
};

}  // namespace objstore::config
