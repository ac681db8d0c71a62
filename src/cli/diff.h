// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

namespace vmxkit::cli {

/// A unified diff (3 lines of context) of two texts, split into lines as `.vmx` files are
/// ("\n", "\r\n" or "\r"); empty when the texts are equal.
std::string unified_diff(std::string_view before, std::string_view after,
                         std::string_view before_name, std::string_view after_name);

}  // namespace vmxkit::cli
