// SPDX-License-Identifier: Apache-2.0
// What each run of the binary loads: the libraries only some commands use (libxml2 and ICU for
// vSphere XML, libcurl for the live commands, Graphviz for SVG) are loaded when first used, so a
// `fmt` or a `lint` of a .vmx does not pay their loading and relocation.
#include <catch2/catch.hpp>
#include <string>

#include "support/support.h"

namespace {

/// The shared objects the dynamic linker loaded for `args` (LD_DEBUG=files), one per line.
std::string loaded_by(const std::string& args) {
  const std::string command = std::string("LD_DEBUG=files '") + VMXKIT_BINARY + "' " + args +
                              " 2>&1 >/dev/null | grep -o 'file=[^ ]*' | sort -u";
  const auto r = vmxkit::test::run_shell(command);
  REQUIRE(r.code == 0);
  return r.out;
}

std::string source(const std::string& path) { return vmxkit::test::source_path(path).string(); }

}  // namespace

TEST_CASE("fmt and lint of a .vmx load neither libxml2, ICU, libcurl nor Graphviz",
          "[cli][start-up]") {
  for (const std::string& command :
       {"fmt '" + source("examples/vmx/gpu-rdma-worker.vmx") + "'",
        "lint '" + source("examples/vmx/gpu-rdma-worker.vmx") + "'", std::string("--version")}) {
    const std::string loaded = loaded_by(command);
    INFO(command << "\n" << loaded);
    CHECK_THAT(loaded, Catch::Contains("file=libstdc++"));  // the listing works
    CHECK_THAT(loaded, !Catch::Contains("libxml2") && !Catch::Contains("libicu") &&
                           !Catch::Contains("libcurl") && !Catch::Contains("libgvc"));
  }
}

TEST_CASE("reading vSphere XML loads libxml2 when it is first needed", "[cli][start-up]") {
  const std::string loaded = loaded_by("lint '" + source("tests/data/vsphere/plan.soap.xml") + "'");
  INFO(loaded);
  CHECK_THAT(loaded, Catch::Contains("file=libxml2.so"));
}
