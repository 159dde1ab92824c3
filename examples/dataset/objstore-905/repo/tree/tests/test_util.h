#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/status.h"

// Like assert(), but kept in release builds and printing the status that failed.
#define CHECK_OK(expr)                                                                   \
  do {                                                                                   \
    ::objstore::Status _s = (expr);                                                      \
    if (!_s.ok()) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, _s.ToString().c_str()); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                          \
    }                                                                        \
  } while (0)

inline std::string MakeTempDir() {
  char dir[] = "/tmp/objstore-test-XXXXXX";
  CHECK(::mkdtemp(dir) != nullptr);
  return dir;
}

inline void RemoveTree(const std::string& dir) {
  std::string cmd = "rm -rf '" + dir + "'";
  CHECK(std::system(cmd.c_str()) == 0);
}
