// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <string_view>

namespace vmxkit {

/// A data file compiled into the binary by cmake/embed_files.cmake (templates, schemas,
/// the device catalogue). The table ends with an entry whose name is empty.
struct EmbeddedFile {
  std::string_view name;
  std::string_view data;
};

}  // namespace vmxkit
