// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include "vmxkit/checks/rules.h"

namespace vmxkit::checks {

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

const std::vector<const Rule*>& all_rules() {
  // Sorted by id (a test checks the order). A retired rule stays here with status `removed`.
  static const std::vector<const Rule*> kRules = {
      &kMMIO001, &kMMIO002, &kMMIO003, &kMMIO004, &kMMIO005, &kOVF001,  &kP2P001,  &kP2P002,
      &kP2P003,  &kP2P004,  &kP2P005,  &kPT001,   &kPT002,   &kPT003,   &kPT004,   &kPT005,
      &kPT006,   &kPT007,   &kPT008,   &kPT009,   &kPT010,   &kPT011,   &kPT012,   &kTOPO001,
      &kTOPO002, &kTOPO003, &kTOPO004, &kTOPO005, &kTOPO006, &kTOPO007, &kTOPO008, &kTOPO009,
      &kTOPO010, &kTOPO011, &kVMX001,  &kVMX002,  &kVMX003,  &kVMX004,  &kVMX005,  &kVMX006,
      &kVMX007,  &kVMX008,  &kVMX009,  &kVMX010,  &kVMX011,  &kVMX012,  &kXML001,
  };
  return kRules;
}

const Rule* find_rule(std::string_view id) {
  const auto& rules = all_rules();
  const auto it =
      std::find_if(rules.begin(), rules.end(), [id](const Rule* r) { return r->id == id; });
  return it == rules.end() ? nullptr : *it;
}

}  // namespace vmxkit::checks
