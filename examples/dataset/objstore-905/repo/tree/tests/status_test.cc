#include <cassert>
#include <iostream>

#include "common/status.h"

int main() {
  objstore::Status ok;
  assert(ok.ok());
  objstore::Status late = objstore::Status::DeadlineExceeded("osd-3: read timed out");
  assert(!late.ok());
  assert(late.ToString() == "DEADLINE_EXCEEDED: osd-3: read timed out");
  std::cout << "status_test passed" << std::endl;
  return 0;
}
