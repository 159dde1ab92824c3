#pragma once

#include <string>
#include <utility>

namespace objstore {

enum class Code {
  kOk,
  kDeadlineExceeded,
  kUnavailable,
  kDataLoss,
  kInternal,
  kNotFound,
  kInvalidArgument,
  kAlreadyExists,
  kFailedPrecondition,
};

// A result code with a message, in the style of absl::Status.
class Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status DeadlineExceeded(std::string m) { return {Code::kDeadlineExceeded, std::move(m)}; }
  static Status Unavailable(std::string m) { return {Code::kUnavailable, std::move(m)}; }
  static Status DataLoss(std::string m) { return {Code::kDataLoss, std::move(m)}; }
  static Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }
  static Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
  static Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {Code::kAlreadyExists, std::move(m)}; }
  static Status FailedPrecondition(std::string m) { return {Code::kFailedPrecondition, std::move(m)}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

inline std::string Status::ToString() const {
  static const char* names[] = {"OK",        "DEADLINE_EXCEEDED", "UNAVAILABLE",   "DATA_LOSS",          "INTERNAL",
                                "NOT_FOUND", "INVALID_ARGUMENT",  "ALREADY_EXISTS", "FAILED_PRECONDITION"};
  std::string out = names[static_cast<int>(code_)];
  if (!message_.empty()) out += ": " + message_;
  return out;
}

// Returns early from the calling function when the expression yields a failed Status.
#define OBJSTORE_RETURN_IF_ERROR(expr)        \
  do {                                        \
    ::objstore::Status _st = (expr);          \
    if (!_st.ok()) return _st;                \
  } while (0)

}  // namespace objstore
