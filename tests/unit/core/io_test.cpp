// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/io.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <sstream>

#include "support/support.h"
#include "vmxkit/core/error.h"

using namespace vmxkit;

TEST_CASE("write_file_atomic replaces the file and keeps its mode", "[core][io]") {
  test::TempDir dir;
  const auto path = dir / "vm.vmx";
  test::write_bytes(path, "old\n");
  REQUIRE(::chmod(path.c_str(), 0600) == 0);
  write_file_atomic(path.string(), "new\n");
  CHECK(test::read_bytes(path) == "new\n");
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  // No temporary file is left behind.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  CHECK(entries == 1);
}

TEST_CASE("write_file_atomic keeps a symbolic link and replaces its target", "[core][io]") {
  test::TempDir dir;
  test::write_bytes(dir / "real.vmx", "old\n");
  std::filesystem::create_symlink(dir / "real.vmx", dir / "link.vmx");
  write_file_atomic((dir / "link.vmx").string(), "new\n");
  CHECK(std::filesystem::is_symlink(dir / "link.vmx"));
  CHECK(test::read_bytes(dir / "real.vmx") == "new\n");
}

TEST_CASE("write_file_atomic fails cleanly in a missing directory", "[core][io]") {
  test::TempDir dir;
  CHECK_THROWS_AS(write_file_atomic((dir / "nope" / "vm.vmx").string(), "x"), Error);
}

TEST_CASE("read_file names the path when it cannot read", "[core][io]") {
  test::TempDir dir;
  try {
    read_file((dir / "missing.vmx").string());
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("missing.vmx: cannot open") != std::string::npos);
  }
  CHECK_THROWS_AS(read_file(dir.path().string()), Error);
}

TEST_CASE("reads refuse input over the size cap", "[core][io]") {
  test::TempDir dir;
  test::write_bytes(dir / "big", std::string(100, 'x'));
  CHECK_THROWS_AS(read_file((dir / "big").string(), 99), Error);
  CHECK(read_file((dir / "big").string(), 100).size() == 100);
  std::istringstream in(std::string(100, 'x'));
  CHECK_THROWS_AS(read_stream(in, "<stdin>", 50), Error);
}

TEST_CASE("vmx_lock_present finds a VM's lock directory", "[core][io]") {
  test::TempDir dir;
  const auto vmx = (dir / "vm.vmx").string();
  CHECK(vmx_lock_present(vmx).empty());
  std::filesystem::create_directory(dir / "vm.vmx.lck");
  CHECK(vmx_lock_present(vmx) == vmx + ".lck");
}
