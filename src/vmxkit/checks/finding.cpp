// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "vmxkit/checks/check.h"

namespace vmxkit::checks {

Finding& FindingSink::report(const Check& check, std::string subject, std::string message,
                             std::string fix, FindingOrigin where) {
  findings_.push_back(Finding{&check, check.severity, std::move(subject), std::move(message),
                              std::move(fix), std::move(where)});
  return findings_.back();
}

void FindingSink::not_checked(const Check& check, std::string_view what, std::string_view needs) {
  report(not_checked_, std::string(check.id),
         fmt::format("{} ({}): not checked (needs: {})", what, check.name, needs));
}

}  // namespace vmxkit::checks
