#pragma once

#include <sstream>
#include <string>
#include <string_view>

namespace objstore {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

// Parses "debug", "info", "warn" or "error" (any case).
bool ParseLogLevel(std::string_view text, LogLevel* out);

// Messages below this level are dropped. The default is kInfo.
void SetMinLogLevel(LogLevel level);
LogLevel MinLogLevel();

// Writes one line to stderr: "<UTC time> <LEVEL> <component>: <message>". Lines from
// different threads never interleave.
void LogLine(LogLevel level, std::string_view component, std::string_view message);

// Collects a message with operator<< and writes it as one line when it goes out of scope.
class LogMessage {
 public:
  LogMessage(LogLevel level, std::string_view component) : level_(level), component_(component) {}
  ~LogMessage() { LogLine(level_, component_, stream_.str()); }
  LogMessage(const LogMessage&) = delete;
  LogMessage& operator=(const LogMessage&) = delete;

  template <typename T>
  LogMessage& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  LogLevel level_;
  std::string component_;
  std::ostringstream stream_;
};

}  // namespace objstore

// OBJSTORE_LOG(Warn, "chunkserver") << "slow write of " << id;
#define OBJSTORE_LOG(level, component) ::objstore::LogMessage(::objstore::LogLevel::k##level, component)
