// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/text_edit.h"

#include <catch2/catch.hpp>

#include "vmxkit/core/error.h"

using vmxkit::TextEdit;

TEST_CASE("apply_edits applies edits in offset order and keeps insertion order", "[core][edit]") {
  const std::vector<TextEdit> edits = {{6, 11, "there"}, {0, 0, "<"}, {11, 11, "!"}, {0, 0, ">"}};
  CHECK(vmxkit::apply_edits("hello world", edits) == "<>hello there!");
}

TEST_CASE("apply_edits refuses overlapping or out-of-range edits", "[core][edit]") {
  const std::vector<TextEdit> overlap = {{0, 5, "a"}, {4, 6, "b"}};
  CHECK_FALSE(vmxkit::edits_are_disjoint(overlap));
  CHECK_THROWS_AS(vmxkit::apply_edits("hello world", overlap), vmxkit::Error);
  const std::vector<TextEdit> outside = {{3, 99, ""}};
  CHECK_THROWS_AS(vmxkit::apply_edits("hello", outside), vmxkit::Error);
  const std::vector<TextEdit> touching = {{0, 5, "a"}, {5, 6, "b"}};
  CHECK(vmxkit::edits_are_disjoint(touching));
}
