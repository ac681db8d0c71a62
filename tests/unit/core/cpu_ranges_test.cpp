// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>

#include "vmxkit/core/text.h"

TEST_CASE("cpu_ranges prints CPU numbers as Linux prints a CPU list", "[core][text]") {
  CHECK(vmxkit::cpu_ranges({}).empty());
  CHECK(vmxkit::cpu_ranges({5}) == "5");
  CHECK(vmxkit::cpu_ranges({0, 1, 2, 3, 8, 9}) == "0-3,8-9");
  // In any order, repeats once: the vSphere API lists a node's CPUs as it likes.
  CHECK(vmxkit::cpu_ranges({71, 48, 0, 23, 1, 1, 22}) == "0-1,22-23,48,71");
  CHECK(vmxkit::cpu_ranges({4, 6}) == "4,6");
}
