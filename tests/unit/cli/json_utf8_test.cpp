// SPDX-License-Identifier: Apache-2.0
// Every JSON document of the command line is valid UTF-8 and parses, whatever bytes the input
// had: bytes that are not UTF-8 come out as U+FFFD.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "support/support.h"
#include "vmxkit/core/text.h"

using vmxkit::test::run_cli;
using vmxkit::test::write_bytes;

namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Valid UTF-8, and a document nlohmann's strict reader accepts.
nlohmann::json parse_strict(const std::string& out) {
  INFO(out);
  REQUIRE(vmxkit::is_valid_utf8(out));
  nlohmann::json j;
  REQUIRE_NOTHROW(j = nlohmann::json::parse(out));
  return j;
}

// An lspci capture whose only GPU has a Latin-1 byte (0xE9, é) in its name (an id the catalogue
// does not know, so the name is what the output shows) and cannot be placed in the tree (no
// bridges), so the loader also warns about it, naming the file.
const std::string kLatin1Lspci =
    "0000:c1:00.0 3D controller [0302]: NVIDIA Corporation Device [Caf\xE9] [10de:2bff]\n"
    "\tRegion 1: Memory at 52000000000 (64-bit, prefetchable) [size=128G]\n";

}  // namespace

TEST_CASE("lint JSON and SARIF replace a code point above U+10FFFF instead of failing",
          "[cli][lint][json]") {
  vmxkit::test::TempDir dir;
  const auto path = dir / "x.vmx";
  write_bytes(path, "\xF4\x90\x80\x80");  // a 4-byte form of U+110000: not UTF-8
  for (const std::string format : {"json", "sarif"}) {
    INFO(format);
    const auto r = run_cli({"lint", "--format", format, path.string()});
    CHECK(r.code == 1);
    CHECK(r.err.empty());
    const nlohmann::json j = parse_strict(r.out);
    const std::string message =
        format == "json" ? j["files"][0]["diagnostics"][0]["message"].get<std::string>()
                         : j["runs"][0]["results"][0]["message"]["text"].get<std::string>();
    const std::string four = std::string(kReplacement) + kReplacement + kReplacement + kReplacement;
    CHECK(message.find(four) != std::string::npos);
  }
}

TEST_CASE("lint JSON shows a Latin-1 path and value as U+FFFD, SARIF percent-encodes the path",
          "[cli][lint][json]") {
  vmxkit::test::TempDir dir;
  const auto path = dir / "caf\xE9.vmx";
  write_bytes(path, "displayName = \"caf\xE9\"\ndisplayName = \"x\"\n");
  auto r = run_cli({"lint", "--format", "json", path.string()});
  CHECK(r.code == 1);
  nlohmann::json j = parse_strict(r.out);
  CHECK(j["files"][0]["path"].get<std::string>().find(std::string("caf") + kReplacement + ".vmx") !=
        std::string::npos);
  r = run_cli({"lint", "--format", "sarif", path.string()});
  CHECK(r.code == 1);
  j = parse_strict(r.out);
  CHECK(j["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .get<std::string>()
            .find("caf%E9.vmx") != std::string::npos);
}

TEST_CASE("topo JSON replaces a Latin-1 byte in an lspci device name and in a file name",
          "[cli][topo][json]") {
  vmxkit::test::TempDir dir;
  const auto path = dir / "h\xF4st.txt";
  write_bytes(path, kLatin1Lspci);
  const auto r = run_cli({"topo", "--format", "json", path.string()});
  CHECK(r.code == 0);
  const nlohmann::json j = parse_strict(r.out);
  REQUIRE(j["gpus"].size() == 1);
  CHECK(j["gpus"][0]["name"] == std::string("NVIDIA Corporation Device [Caf") + kReplacement + "]");
  REQUIRE(j["warnings"].size() == 1);
  CHECK(j["warnings"][0].get<std::string>().find(std::string("h") + kReplacement + "st.txt:1") !=
        std::string::npos);
  // The text output keeps the bytes as they are (a terminal shows them as the user's locale does).
  const auto text = run_cli({"topo", path.string()});
  CHECK(text.out.find("Caf\xE9]") != std::string::npos);
}

TEST_CASE("mmio JSON replaces a Latin-1 byte in the file a BAR size comes from",
          "[cli][mmio][json]") {
  vmxkit::test::TempDir dir;
  const auto path = dir / "h\xF4st.txt";
  write_bytes(path, kLatin1Lspci);
  const auto r = run_cli({"mmio", path.string(), "--device", "0000:c1:00.0", "--format", "json"});
  CHECK(r.code == 0);
  const nlohmann::json j = parse_strict(r.out);
  REQUIRE(!j["bars"].empty());
  CHECK(j["bars"][0]["source"].get<std::string>().find(std::string("h") + kReplacement +
                                                       "st.txt:2") != std::string::npos);
  CHECK(j["size_gb"] == 128);
}

TEST_CASE("host-check JSON replaces a Latin-1 byte in a finding's subject and message",
          "[cli][host-check][json]") {
  vmxkit::test::TempDir dir;
  const auto host = dir / "h\xF4st.txt";
  write_bytes(host, kLatin1Lspci);
  const auto grub = dir / (std::string("gr\xFC") + "b");
  write_bytes(grub, "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n");
  const auto r =
      run_cli({"host-check", host.string(), "--cmdline", grub.string(), "--format", "json"});
  CHECK(r.code == 1);
  const nlohmann::json j = parse_strict(r.out);
  bool saw_iommu = false;
  bool saw_input = false;
  for (const auto& f : j["findings"]) {
    const std::string subject = f["subject"].get<std::string>();
    if (f["name"] == "iommu-off") {
      saw_iommu = true;
      CHECK(subject.find(std::string("gr") + kReplacement + "b:1") != std::string::npos);
    }
    if (f["name"] == "input") {
      saw_input = true;
      CHECK(subject.find(std::string("h") + kReplacement + "st.txt:1") != std::string::npos);
    }
  }
  CHECK(saw_iommu);
  CHECK(saw_input);
}
