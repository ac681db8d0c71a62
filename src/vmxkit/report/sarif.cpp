// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/sarif.h"

#include <fmt/format.h>

#include <cctype>

namespace vmxkit::report {

std::string sarif_level(Severity s) {
  switch (s) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    default:
      return "note";
  }
}

std::string uri_reference(std::string_view path) {
  std::string out;
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || std::string_view("-._~/").find(ch) != std::string_view::npos) {
      out.push_back(ch);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace vmxkit::report
