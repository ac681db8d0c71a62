// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include "vmxkit/checks/all.h"

namespace vmxkit::checks {

std::string_view to_string(Kind kind) {
  switch (kind) {
    case Kind::lint:
      return "lint";
    case Kind::host:
      return "host";
    case Kind::guest:
      return "guest";
  }
  return "lint";
}

std::string_view to_string(FixAvailability availability) {
  switch (availability) {
    case FixAvailability::none:
      return "none";
    case FixAvailability::sometimes:
      return "sometimes";
    case FixAvailability::always:
      return "always";
  }
  return "none";
}

const std::vector<const Check*>& all_checks() {
  // Sorted by id (the build sorts the list; a test checks the order). A retired check stays
  // here with status `removed`.
  static const std::vector<const Check*> kChecks = {
#define VMXKIT_CHECK(id) &k##id,
#include "vmxkit/checks/check_list.inc"
#undef VMXKIT_CHECK
  };
  return kChecks;
}

std::vector<const Check*> checks_of(Kind kind) {
  std::vector<const Check*> out;
  for (const Check* c : all_checks()) {
    if (c->kind == kind) out.push_back(c);
  }
  return out;
}

const Check* find_check(std::string_view id) {
  const auto& checks = all_checks();
  const auto it =
      std::find_if(checks.begin(), checks.end(), [id](const Check* c) { return c->id == id; });
  return it == checks.end() ? nullptr : *it;
}

}  // namespace vmxkit::checks
