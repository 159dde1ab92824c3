#include "common/logging.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <strings.h>

namespace objstore {

namespace {

std::atomic<LogLevel> min_level{LogLevel::kInfo};
std::mutex write_mu;

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarn:
      return "WARN";
    case LogLevel::kError:
      return "ERROR";
  }
  return "?";
}

// 2025-10-02T11:02:14.101Z
std::string UtcTimestamp() {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::time_t secs = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

bool ParseLogLevel(std::string_view text, LogLevel* out) {
  static const struct {
    const char* name;
    LogLevel level;
  } kNames[] = {{"debug", LogLevel::kDebug}, {"info", LogLevel::kInfo}, {"warn", LogLevel::kWarn},
                {"warning", LogLevel::kWarn}, {"error", LogLevel::kError}};
  for (const auto& entry : kNames) {
    std::string_view name(entry.name);
    if (name.size() == text.size() && strncasecmp(name.data(), text.data(), text.size()) == 0) {
      *out = entry.level;
      return true;
    }
  }
  return false;
}

void SetMinLogLevel(LogLevel level) { min_level.store(level, std::memory_order_relaxed); }

LogLevel MinLogLevel() { return min_level.load(std::memory_order_relaxed); }

void LogLine(LogLevel level, std::string_view component, std::string_view message) {
  if (level < MinLogLevel()) return;
  std::string line = UtcTimestamp();
  char level_field[8];
  std::snprintf(level_field, sizeof level_field, " %-5s ", LevelName(level));
  line += level_field;
  line.append(component);
  line += ": ";
  line.append(message);
  line += '\n';
  std::lock_guard<std::mutex> lock(write_mu);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace objstore
