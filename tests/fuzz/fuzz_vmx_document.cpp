// SPDX-License-Identifier: Apache-2.0
// Parser fuzzer: no crash, no leak, and the lossless promises hold for any bytes:
// write(parse(x)) == x; every line's offsets are in range and contiguous; set then unset of a
// new key gives back x; the canonical form, when there is one, is a fixed point, and the fast
// path that copies canonical lines in runs gives what rebuilding every line gives, also when it
// reads the text in chunks (fmt's pieces of a mapped file), with the same first error.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "vmxkit/core/error.h"
#include "vmxkit/core/wide_encoding.h"
#include "vmxkit/formats/vmx/canonical.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/formats/vmx/edit.h"

using namespace vmxkit::vmx;

#define FUZZ_ASSERT(cond)      \
  do {                         \
    if (!(cond)) std::abort(); \
  } while (0)

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  // UTF-16 and UTF-32 text is refused (no VMware reader takes it); every other input parses.
  if (vmxkit::detect_wide_encoding(input) != vmxkit::WideEncoding::none) {
    bool refused = false;
    try {
      (void)Document::parse(input);
    } catch (const vmxkit::Error&) {
      refused = true;
    }
    FUZZ_ASSERT(refused);
    return 0;
  }
  const Document doc = Document::parse(input);
  FUZZ_ASSERT(doc.to_string() == input);

  std::uint32_t expected_begin = doc.has_bom() ? 3 : 0;
  for (const Line& line : doc.lines()) {
    FUZZ_ASSERT(line.begin == expected_begin);
    FUZZ_ASSERT(line.begin <= line.end && line.next() <= input.size());
    if (line.is_entry()) {
      FUZZ_ASSERT(line.key_begin < line.key_end && line.key_end <= line.value_begin);
      FUZZ_ASSERT(line.value_begin <= line.value_end && line.value_end <= line.comment_begin);
      FUZZ_ASSERT(line.comment_begin <= line.end);
    }
    expected_begin = line.next();
  }
  FUZZ_ASSERT(expected_begin == input.size() || (doc.lines().empty() && input.size() <= 3));
  (void)doc.problems();
  (void)doc.duplicate_keys();

  const Document added = with_edits(doc, set(doc, "vmxkit.fuzz.key", "v a|l\"ue"));
  FUZZ_ASSERT(added.get("vmxkit.fuzz.key") == std::string("v a|l\"ue"));
  const Document removed = with_edits(added, unset(added, "vmxkit.fuzz.key"));
  FUZZ_ASSERT(removed.to_string() == input || doc.find("vmxkit.fuzz.key") != nullptr);

  // fmt's pieces read in chunks (as it reads a mapped file): a chunk size from the input's
  // first byte, 1 to 64, so that lines cross chunk borders everywhere.
  const std::size_t chunk = size == 0 ? 1 : 1 + data[0] % 64;
  const CanonicalPieces::ReadAt read = [&](std::size_t offset, std::span<char> to) {
    FUZZ_ASSERT(offset + to.size() <= input.size());
    std::memcpy(to.data(), input.data() + offset, to.size());
  };
  std::string pieces_text, pieces_error;
  try {
    CanonicalPieces(input, {}, read, chunk).for_each([&](std::string_view p) {
      pieces_text.append(p);
    });
  } catch (const vmxkit::Error& e) {
    pieces_error = e.what();
  }

  std::string once;
  try {
    once = canonical_form(doc);
  } catch (const vmxkit::Error& fast) {
    FUZZ_ASSERT(!doc.problems().empty());
    FUZZ_ASSERT(pieces_error == fast.what());
    try {
      (void)detail::canonical_form_each_line(input, {});
      FUZZ_ASSERT(false);
    } catch (const vmxkit::Error& each) {
      FUZZ_ASSERT(std::string(fast.what()) == each.what());  // the same line and column
    }
    return 0;
  }
  FUZZ_ASSERT(pieces_error.empty() && pieces_text == once);
  FUZZ_ASSERT(detail::canonical_form_each_line(input, {}) == once);
  // A canonical form that happens to read as UTF-16 is refused like any such input.
  if (vmxkit::detect_wide_encoding(once) != vmxkit::WideEncoding::none) return 0;
  FUZZ_ASSERT(canonical_form(Document::parse(once)) == once);
  return 0;
}
