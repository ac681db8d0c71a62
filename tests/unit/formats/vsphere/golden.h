// SPDX-License-Identifier: Apache-2.0
// Golden files under tests/data/vsphere/. VMXKIT_UPDATE_GOLDEN=1 rewrites them from the output.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "support/support.h"

namespace vmxkit::test {

inline std::string golden_path(const std::string& name) {
  return source_path("tests/data/vsphere/" + name).string();
}

inline void check_golden(const std::string& name, const std::string& actual) {
  if (std::getenv("VMXKIT_UPDATE_GOLDEN") != nullptr) write_bytes(golden_path(name), actual);
  CHECK(actual == read_bytes(golden_path(name)));
}

}  // namespace vmxkit::test
