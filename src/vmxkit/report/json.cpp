// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/report/json.h"

#include <ostream>

#include "vmxkit/core/text.h"

namespace vmxkit::report {

std::string json_text(std::string_view bytes) { return to_valid_utf8(bytes); }

void write_json_document(std::ostream& os, const Json& doc) {
  os << doc.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace vmxkit::report
