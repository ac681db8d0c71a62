// SPDX-License-Identifier: Apache-2.0
// The public API's canonical form (CanonicalVmx, vmx_canonical): what `vmxkit fmt` is made of.
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <csignal>
#include <string>
#include <string_view>
#include <vector>

#include "support/support.h"
#include "vmxkit/vmxkit.h"

using Catch::Contains;

namespace {

std::string joined(const std::vector<std::string_view>& pieces) {
  std::string out;
  for (const std::string_view piece : pieces) out += piece;
  return out;
}

// A text of `lines` lines, every third of them not canonical (unquoted, spaced, escaped).
std::string mixed_vmx(std::size_t lines) {
  std::string text;
  for (std::size_t i = 0; i < lines; ++i) {
    if (i % 3 == 0) {
      text += "ethernet" + std::to_string(i) + ".present=TRUE\n";
    } else if (i % 3 == 1) {
      text += "pciPassthru" + std::to_string(i) + ".id = \"0000:18:00.0\"\n";
    } else {
      text += "# comment " + std::to_string(i) + "\n";
    }
  }
  return text;
}

}  // namespace

TEST_CASE("CanonicalVmx gives VMware's writer form and says whether the input was in it",
          "[api][fmt]") {
  const std::string input = "# keep me\r\nfirmware=efi\r\nMemSize = \"4096\"  # MB\r\n";
  const vmxkit::CanonicalVmx canonical(input, "vm.vmx");
  const std::string expected = "# keep me\r\nfirmware = \"efi\"\r\nMemSize = \"4096\" # MB\r\n";
  CHECK(canonical.text() == expected);
  CHECK(joined(canonical.pieces()) == expected);
  CHECK(vmxkit::vmx_canonical(input, "vm.vmx") == expected);
  CHECK_FALSE(canonical.unchanged());
  CHECK(vmxkit::CanonicalVmx(expected, "vm.vmx").unchanged());
}

TEST_CASE("CanonicalVmx refuses a line VMware cannot read, naming its place", "[api][fmt]") {
  CHECK_THROWS_WITH(vmxkit::CanonicalVmx("a = \"1\"\nbroken line\n", "vm.vmx"),
                    Contains("vm.vmx:2:"));
  CHECK_THROWS_AS(vmxkit::vmx_canonical("x = \"unterminated\n", "vm.vmx"), vmxkit::Error);
}

TEST_CASE("CanonicalVmx::read gives the same form of a large mapped file, read or unread",
          "[api][fmt]") {
  vmxkit::allow_mapped_inputs();  // what the command line does once its SIGBUS handler is set
  const vmxkit::test::TempDir dir;
  const std::string text = mixed_vmx(200'000);  // about 6 MiB: mapped, done in two halves
  REQUIRE(text.size() > (std::size_t{2} << 20));
  vmxkit::test::write_bytes(dir / "big.vmx", text);
  const std::string expected = vmxkit::vmx_canonical(text, "big.vmx");
  for (const bool unread : {false, true}) {
    INFO("unread: " << unread);
    const vmxkit::CanonicalVmx canonical =
        vmxkit::CanonicalVmx::read((dir / "big.vmx").string(), unread);
    CHECK(canonical.text() == expected);
    CHECK_FALSE(canonical.unchanged());
  }
  vmxkit::test::write_bytes(dir / "canonical.vmx", expected);
  CHECK(vmxkit::CanonicalVmx::read((dir / "canonical.vmx").string()).unchanged());
  CHECK_THROWS_WITH(vmxkit::CanonicalVmx::read((dir / "missing.vmx").string()),
                    Contains("missing.vmx"));
}

TEST_CASE("CanonicalVmx::write_to writes the whole form to a descriptor, and names a failure",
          "[api][fmt]") {
  const vmxkit::test::TempDir dir;
  const std::string text = mixed_vmx(3'000);
  const vmxkit::CanonicalVmx canonical(text, "vm.vmx");
  {
    const std::string out = (dir / "out.vmx").string();
    vmxkit::test::write_bytes(out, "");
    const int fd = ::open(out.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    REQUIRE(fd >= 0);
    canonical.write_to(fd, "out.vmx");
    ::close(fd);
    CHECK(vmxkit::test::read_bytes(out) == canonical.text());
  }
  std::array<int, 2> pipe_fds{};
  REQUIRE(::pipe(pipe_fds.data()) == 0);
  ::close(pipe_fds[0]);  // no reader: the write fails with EPIPE (SIGPIPE ignored here)
  const auto previous = ::signal(SIGPIPE, SIG_IGN);
  CHECK_THROWS_WITH(canonical.write_to(pipe_fds[1], "<pipe>"), Contains("<pipe>"));
  ::signal(SIGPIPE, previous);
  ::close(pipe_fds[1]);
}
