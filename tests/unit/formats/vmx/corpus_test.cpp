// SPDX-License-Identifier: Apache-2.0
// Every real file of the shared corpus must survive read + write unchanged, and edits must not
// touch anything but the edited lines.
#include <catch2/catch.hpp>
#include <set>

#include "support/support.h"
#include "vmxkit/formats/vmx/edit.h"

using namespace vmxkit;
using namespace vmxkit::vmx;

TEST_CASE("every corpus .vmx round-trips byte-identical", "[vmx][corpus]") {
  const auto files = test::corpus_files("vmx", ".vmx");
  CHECK(files.size() >= 30);
  for (const auto& path : files) {
    INFO(path.filename().string());
    const std::string bytes = test::read_bytes(path);
    const auto doc = Document::parse(bytes, path.string());
    CHECK(doc.to_string() == bytes);
  }
}

TEST_CASE("set then unset of a new key restores every corpus file", "[vmx][corpus][edit]") {
  for (const auto& path : test::corpus_files("vmx", ".vmx")) {
    INFO(path.filename().string());
    const std::string bytes = test::read_bytes(path);
    const auto doc = Document::parse(bytes, path.string());
    const auto added = with_edits(doc, set(doc, "pciPassthru.allowP2P.vmxkitTest", "TRUE"));
    CHECK(added.to_string() != bytes);
    CHECK(*added.get("pciPassthru.allowP2P.vmxkitTest") == "TRUE");
    const auto removed = with_edits(added, unset(added, "pciPassthru.allowP2P.vmxkitTest"));
    CHECK(removed.to_string() == bytes);
  }
}

TEST_CASE("exactly the corpus files with malformed lines are reported", "[vmx][corpus]") {
  // Each of these has lines VMware's reader rejects; every other corpus file must have none.
  const std::set<std::string> expected = {
      // RST markup and prose around the settings, `key VALUE` without '='.
      "FRAGMENT_doc_nvidia_nvaie_ocp_ui_style_key_space_value_rst.vmx",
      // Jinja `{% if %}` lines in a template (lines 22, 24, 26).
      "oc4vm_handwritten_hw21_macos_inline_comments_unquoted_TRUE.vmx",
      // Truncated UTF-8 swallowed the closing quote of sharedFolder0.* (lines 121-122).
      "ws_hw19_win10_crlf_utf8decl_invalid_utf8_sharedfolder.vmx",
      // `key6 = "value\"hello"`: VMware has no backslash escape, so text follows the quote.
      "vmconfig_fixture_chaotic_whitespace_tabs_dupkeys_backslash_quotes.vmx",
      "vmconfig_fixture_NEGATIVE_missing_equals.vmx",
      "vmconfig_fixture_NEGATIVE_no_value.vmx",
      "vmconfig_fixture_NEGATIVE_space_in_key.vmx",
      "vmconfig_fixture_NEGATIVE_unterminated_quote.vmx",
  };
  std::set<std::string> reported;
  for (const auto& path : test::corpus_files("vmx", ".vmx")) {
    const auto doc = Document::parse(test::read_bytes(path), path.string());
    if (!doc.problems().empty()) reported.insert(path.filename().string());
  }
  CHECK(reported == expected);
}
