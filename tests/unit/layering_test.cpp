// SPDX-License-Identifier: Apache-2.0
// The library's layers include downwards only (docs/design.md, "Data flows one way"): a file of
// one folder of src/vmxkit/ includes headers of its own layer or of the layers below it. The
// Python module and the installed package's example use the public API, vmxkit/vmxkit.h, alone,
// and the command line reaches behind it no more than it did.
#include <array>
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/support.h"

namespace {

// Lowest first.
constexpr std::array<std::string_view, 8> kLayers = {"core",     "devices", "model",  "formats",
                                                     "analysis", "checks",  "report", "vsphere"};

int rank(std::string_view folder) {
  for (std::size_t i = 0; i < kLayers.size(); ++i) {
    if (kLayers[i] == folder) return static_cast<int>(i);
  }
  return -1;
}

// The one link upwards on purpose: generate's plan document is written from the facade's
// vmxkit::Plan, so that the CLI and the Python package hand out the same values.
bool allowed(const std::string& file, const std::string& header) {
  return file.ends_with("report/plan_json.h") && header == "vmxkit.h";
}

}  // namespace

TEST_CASE("every layer of the library includes only its own layer and those below", "[layering]") {
  const std::filesystem::path root = vmxkit::test::source_path("src/vmxkit");
  const std::regex include(R"re(#include "vmxkit/([^"]+)")re");
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
    const std::string relative = std::filesystem::relative(entry.path(), root).generic_string();
    const auto slash = relative.find('/');
    if (slash == std::string::npos) continue;  // the facade (vmxkit.h, api.cpp) is above all
    const int own = rank(relative.substr(0, slash));
    INFO(relative);
    REQUIRE(own >= 0);  // a new folder gets its place in kLayers
    ++files;
    const std::string text = vmxkit::test::read_bytes(entry.path());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), include);
         it != std::sregex_iterator(); ++it) {
      const std::string header = (*it)[1];
      const auto at = header.find('/');
      const int theirs =
          at == std::string::npos ? static_cast<int>(kLayers.size()) : rank(header.substr(0, at));
      INFO("includes vmxkit/" << header);
      CHECK((theirs <= own || allowed(relative, header)));
    }
  }
  CHECK(files > 200);
}

TEST_CASE("the Python module and the package's example include vmxkit/vmxkit.h alone",
          "[layering]") {
  // What the Python package does goes through the public API, so a C++ program can do the
  // same: a binding that reached behind it would grow an API of its own, untested from C++.
  const std::regex include(R"re(#\s*include\s*[<"](vmxkit/[^">]+)[">])re");
  for (const char* file : {"python/src/module.cpp", "examples/consumer/main.cpp"}) {
    INFO(file);
    const std::string text = vmxkit::test::read_bytes(vmxkit::test::source_path(file));
    int facade = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), include);
         it != std::sregex_iterator(); ++it) {
      const std::string header = (*it)[1];
      INFO("includes " << header);
      CHECK(header == "vmxkit/vmxkit.h");
      facade += header == "vmxkit/vmxkit.h" ? 1 : 0;
    }
    CHECK(facade == 1);
  }
}

namespace {

// What each file of src/cli/ includes of the library besides vmxkit/vmxkit.h. The command line
// binds arguments to the public API (docs/design.md, "Shape of the code"); these are what it
// still reaches behind it, and each list may only shrink: a file, new or old, may not include
// an internal header it does not list, and a header a file no longer includes leaves its list,
// so that it cannot come back.
struct CliIncludes {
  std::string_view file;  ///< under src/cli/
  std::vector<std::string_view> headers;
};

const std::vector<CliIncludes>& cli_internal_includes() {
  static const std::vector<CliIncludes> list = {
      {"common.cpp", {"vmxkit/core/io.h"}},
      {"common.h", {"vmxkit/core/io.h"}},
  };
  return list;
}

}  // namespace

TEST_CASE("the command line reaches behind vmxkit/vmxkit.h no more than it did", "[layering]") {
  const std::filesystem::path root = vmxkit::test::source_path("src/cli");
  const std::regex include(R"re(#\s*include\s*[<"](vmxkit/[^">]+)[">])re");
  std::set<std::pair<std::string, std::string>> allowed;
  for (const CliIncludes& f : cli_internal_includes()) {
    for (const std::string_view h : f.headers) allowed.emplace(f.file, h);
  }
  std::set<std::pair<std::string, std::string>> found;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
    const std::string file = entry.path().filename().string();
    const std::string text = vmxkit::test::read_bytes(entry.path());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), include);
         it != std::sregex_iterator(); ++it) {
      const std::string header = (*it)[1];
      if (header == "vmxkit/vmxkit.h") continue;
      found.emplace(file, header);
      if (!allowed.contains({file, header})) {
        FAIL_CHECK("src/cli/" << file << " includes " << header
                              << ", an internal header: go through vmxkit/vmxkit.h (add what "
                                 "the command needs to the public API, in src/vmxkit/api*.cpp)");
      }
    }
  }
  for (const auto& [file, header] : allowed) {
    if (!found.contains({file, header})) {
      FAIL_CHECK(
          "src/cli/" << file << " no longer includes " << header
                     << ": remove it from cli_internal_includes() in tests/unit/layering_test.cpp"
                     << ", so that it cannot come back");
    }
  }
  CHECK(found.size() == allowed.size());
}
