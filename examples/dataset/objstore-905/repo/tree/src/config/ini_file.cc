#include "config/ini_file.h"

#include <fstream>
#include <sstream>

#include "common/strings.h"

namespace objstore::config {

namespace {

std::string_view StripComment(std::string_view line) {
  // A comment starts a line or follows whitespace, so "a=b#c" keeps its '#'.
  for (size_t i = 0; i < line.size(); ++i) {
    if ((line[i] == '#' || line[i] == ';') && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
      return line.substr(0, i);
    }
  }
  return line;
}

std::string Unquote(std::string_view v) {
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return std::string(v.substr(1, v.size() - 2));
  return std::string(v);
}

}  // namespace

Status IniFile::Parse(std::string_view text, const std::string& origin, IniFile* out) {
  IniFile ini;
  ini.origin_ = origin;
  std::string section;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = TrimSpace(StripComment(text.substr(pos, nl - pos)));
    pos = nl + 1;
    ++line_no;
    if (line.empty()) continue;
    std::string where = origin + ":" + std::to_string(line_no);
    if (line.front() == '[') {
      if (line.back() != ']' || line.size() < 3) return Status::InvalidArgument(where + ": bad section header");
      section = std::string(TrimSpace(line.substr(1, line.size() - 2)));
      ini.sections_[section];
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) return Status::InvalidArgument(where + ": expected key = value");
    std::string key(TrimSpace(line.substr(0, eq)));
    if (key.empty()) return Status::InvalidArgument(where + ": empty key");
    ini.sections_[section][key] = Value{Unquote(TrimSpace(line.substr(eq + 1))), line_no};
  }
  *out = std::move(ini);
  return Status::Ok();
}

Status IniFile::Load(const std::string& path, IniFile* out) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read config file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return Parse(text.str(), path, out);
}

const std::string* IniFile::Get(const std::string& section, const std::string& key) const {
  auto s = sections_.find(section);
  if (s == sections_.end()) return nullptr;
  auto k = s->second.find(key);
  if (k == s->second.end()) return nullptr;
  read_.insert(section + "." + key);
  return &k->second.text;
}

std::vector<std::string> IniFile::Unread() const {
  std::vector<std::string> out;
  for (const auto& [section, keys] : sections_) {
    for (const auto& [key, value] : keys) {
      std::string name = section + "." + key;
      if (read_.count(name) == 0) out.push_back(name);
    }
  }
  return out;
}

std::string IniFile::Where(const std::string& section, const std::string& key) const {
  auto s = sections_.find(section);
  if (s != sections_.end()) {
    auto k = s->second.find(key);
    if (k != s->second.end()) return origin_ + ":" + std::to_string(k->second.line);
  }
  return origin_;
}

}  // namespace objstore::config
