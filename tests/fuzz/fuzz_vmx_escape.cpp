// SPDX-License-Identifier: Apache-2.0
// Escape codec fuzzer: decode(encode(x)) == x for any bytes; encode's output has no byte VMware
// escapes except the '|' of an escape; decode never fails and never grows its input.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "vmxkit/formats/vmx/escape.h"

using namespace vmxkit::vmx;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::string encoded = escape::encode(input);
  if (escape::decode(encoded) != input) std::abort();
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    const auto c = static_cast<unsigned char>(encoded[i]);
    if (c == '|') {
      // Every '|' starts an escape of two uppercase hex digits.
      auto upper_hex = [](char h) { return (h >= '0' && h <= '9') || (h >= 'A' && h <= 'F'); };
      if (i + 2 >= encoded.size() || !upper_hex(encoded[i + 1]) || !upper_hex(encoded[i + 2])) {
        std::abort();
      }
      i += 2;
      continue;
    }
    if (escape::needs_escape(c)) std::abort();
  }
  if (escape::find_invalid_escape(encoded) != std::string::npos) std::abort();
  const std::string decoded = escape::decode(input);
  if (decoded.size() > input.size()) std::abort();
  return 0;
}
