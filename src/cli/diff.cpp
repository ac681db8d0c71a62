// SPDX-License-Identifier: Apache-2.0
#include "cli/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace vmxkit::cli {
namespace {

// Lines with their endings, so a changed line ending shows as a changed line.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || text[i] == '\r') {
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      lines.push_back(text.substr(start, i + 1 - start));
      start = i + 1;
    }
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

enum class Op : char { keep = ' ', remove = '-', add = '+' };

// Longest common subsequence on the lines between the common prefix and suffix; edits of
// `.vmx` files are local, so the middle is small.
std::vector<std::pair<Op, std::string_view>> diff_lines(const std::vector<std::string_view>& a,
                                                        const std::vector<std::string_view>& b) {
  std::size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }
  const std::size_t n = a.size() - prefix - suffix;
  const std::size_t m = b.size() - prefix - suffix;
  std::vector<std::pair<Op, std::string_view>> out;
  for (std::size_t i = 0; i < prefix; ++i) out.emplace_back(Op::keep, a[i]);
  if (n * m <= std::size_t{16} * 1024 * 1024) {
    std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
    for (std::size_t i = n; i-- > 0;) {
      for (std::size_t j = m; j-- > 0;) {
        lcs[i][j] = a[prefix + i] == b[prefix + j] ? lcs[i + 1][j + 1] + 1
                                                   : std::max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    std::size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[prefix + i] == b[prefix + j]) {
        out.emplace_back(Op::keep, a[prefix + i]);
        ++i;
        ++j;
      } else if (j < m && (i == n || lcs[i][j + 1] > lcs[i + 1][j])) {
        out.emplace_back(Op::add, b[prefix + j++]);
      } else {
        out.emplace_back(Op::remove, a[prefix + i++]);
      }
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) out.emplace_back(Op::remove, a[prefix + i]);
    for (std::size_t j = 0; j < m; ++j) out.emplace_back(Op::add, b[prefix + j]);
  }
  for (std::size_t i = a.size() - suffix; i < a.size(); ++i) out.emplace_back(Op::keep, a[i]);
  return out;
}

}  // namespace

std::string unified_diff(std::string_view before, std::string_view after,
                         std::string_view before_name, std::string_view after_name) {
  if (before == after) return {};
  const auto a = split_lines(before);
  const auto b = split_lines(after);
  const auto ops = diff_lines(a, b);
  constexpr std::size_t kContext = 3;
  std::string out = fmt::format("--- {}\n+++ {}\n", before_name, after_name);
  std::size_t k = 0;
  while (k < ops.size()) {
    while (k < ops.size() && ops[k].first == Op::keep) ++k;
    if (k == ops.size()) break;
    // A hunk: from kContext lines before this change to kContext lines after the last change
    // that is within 2 * kContext of the previous one.
    const std::size_t start = k >= kContext ? k - kContext : 0;
    std::size_t end = k;
    std::size_t last_change = k;
    while (end < ops.size()) {
      if (ops[end].first != Op::keep) last_change = end;
      if (end - last_change > 2 * kContext) break;
      ++end;
    }
    end = std::min(ops.size(), last_change + kContext + 1);
    std::size_t a_line = 1, b_line = 1;
    for (std::size_t i = 0; i < start; ++i) {
      if (ops[i].first != Op::add) ++a_line;
      if (ops[i].first != Op::remove) ++b_line;
    }
    std::size_t a_count = 0, b_count = 0;
    std::string body;
    for (std::size_t i = start; i < end; ++i) {
      if (ops[i].first != Op::add) ++a_count;
      if (ops[i].first != Op::remove) ++b_count;
      body.push_back(static_cast<char>(ops[i].first));
      std::string_view text = ops[i].second;
      const bool has_eol = !text.empty() && (text.back() == '\n' || text.back() == '\r');
      body.append(text);
      if (!has_eol) body.append("\n\\ No newline at end of file\n");
    }
    out += fmt::format("@@ -{},{} +{},{} @@\n", a_count ? a_line : a_line - 1, a_count,
                       b_count ? b_line : b_line - 1, b_count);
    out += body;
    k = end;
  }
  return out;
}

}  // namespace vmxkit::cli
