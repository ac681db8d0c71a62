// SPDX-License-Identifier: Apache-2.0
// The sysfs loader on trees that are not the kernel's: link loops, FIFOs, device nodes,
// directories where files belong, unreadable and oversized files. Each either loads with a
// warning or stops with a vmxkit::Error naming the path; none hangs or escapes as another
// exception.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <future>
#include <string>

#include "support/support.h"
#include "vmxkit/core/error.h"
#include "vmxkit/devices/catalog.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/model/host.h"

using vmxkit::Bdf;

namespace {

namespace fs = std::filesystem;

// A tree with one GPU entry, `devices/0000:01:00.0`, a directory with vendor, device and class.
struct Tree {
  vmxkit::test::TempDir tmp;
  fs::path devices = tmp / "devices";
  fs::path gpu = devices / "0000:01:00.0";
  Tree() {
    fs::create_directories(gpu);
    put("vendor", "0x10de\n");
    put("device", "0x2331\n");
    put("class", "0x030200\n");
  }
  void put(const std::string& name, const std::string& text) const {
    vmxkit::test::write_bytes(gpu / name, text);
  }
  vmxkit::pci::Host load() const {
    vmxkit::pci::Host host;
    vmxkit::pci::load_sysfs(host, devices.string());
    host.finalize();
    return host;
  }
};

// The message of the vmxkit::Error that loading throws, or "" when it loads. Any other
// exception fails the test.
std::string load_error(const Tree& tree) {
  try {
    (void)tree.load();
  } catch (const vmxkit::Error& e) {
    return e.what();
  }
  return {};
}

bool warned(const vmxkit::pci::Host& host, const std::string& text) {
  for (const auto& w : host.warnings()) {
    if (w.to_string().find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("sysfs loader stops at a symbolic link loop with an error naming the path",
          "[pci][sysfs][safety]") {
  SECTION("an entry that is a loop") {
    Tree t;
    fs::create_directory_symlink("b", t.devices / "0000:02:00.0");
    fs::create_directory_symlink("0000:02:00.0", t.devices / "b");
    const std::string e = load_error(t);
    CHECK_THAT(e, Catch::Contains("0000:02:00.0: symbolic link loop"));
  }
  SECTION("an attribute that is a loop") {
    Tree t;
    fs::remove(t.gpu / "vendor");
    fs::create_symlink("vendor2", t.gpu / "vendor");
    fs::create_symlink("vendor", t.gpu / "vendor2");
    CHECK_THAT(load_error(t), Catch::Contains("0000:01:00.0/vendor: symbolic link loop"));
  }
  SECTION("an entry that links back to the directory being read") {
    Tree t;
    fs::create_directory_symlink(".", t.devices / "0000:03:00.0");
    CHECK_THAT(load_error(t), Catch::Contains("0000:03:00.0: the same directory as"));
  }
  SECTION("two entries naming one directory") {
    Tree t;
    fs::create_directory_symlink("0000:01:00.0", t.devices / "0000:04:00.0");
    CHECK_THAT(load_error(t),
               Catch::Contains("0000:04:00.0: the same directory as ") &&
                   Catch::Contains("0000:01:00.0 (a link loop or a duplicated entry)"));
  }
  SECTION("the directory itself is a loop") {
    vmxkit::test::TempDir tmp;
    fs::create_directory_symlink("y", tmp / "x");
    fs::create_directory_symlink("x", tmp / "y");
    vmxkit::pci::Host host;
    CHECK_THROWS_AS(vmxkit::pci::load_sysfs(host, (tmp / "x").string()), vmxkit::Error);
  }
}

TEST_CASE("topo on a sysfs tree with a link loop is an input error, not an internal one",
          "[pci][sysfs][cli]") {
  Tree t;
  fs::create_directory_symlink("a", t.devices / "0000:02:00.0");
  fs::create_directory_symlink("0000:02:00.0", t.devices / "a");
  for (const char* command : {"topo", "host-check"}) {
    const auto r = vmxkit::test::run_cli({command, t.devices.string()});
    INFO(command << ": " << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("vmxkit: error: ") &&
                          Catch::Contains("0000:02:00.0: symbolic link loop"));
  }
  const auto mmio = vmxkit::test::run_cli({"mmio", t.devices.string(), "--device", "0000:01:00.0"});
  CHECK(mmio.code == 2);
  CHECK_THAT(mmio.err, Catch::Contains("symbolic link loop"));
}

TEST_CASE("sysfs loader never opens a FIFO, so a FIFO in the tree does not hang it",
          "[pci][sysfs][safety]") {
  Tree t;
  const fs::path fifo = t.gpu / "numa_node";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto result = std::async(std::launch::async, [&t] { return load_error(t); });
  if (result.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    // The loader blocks in open() or read(): a writer that leaves at once releases it.
    const int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (w >= 0) ::close(w);
    FAIL("loading a tree with a FIFO hung");
  }
  CHECK_THAT(result.get(), Catch::Contains("0000:01:00.0/numa_node: a FIFO, not a regular file"));
}

TEST_CASE("sysfs loader refuses attributes that are not regular files", "[pci][sysfs][safety]") {
  SECTION("a directory where a file is expected") {
    Tree t;
    fs::remove(t.gpu / "vendor");
    fs::create_directory(t.gpu / "vendor");
    CHECK_THAT(load_error(t),
               Catch::Contains("0000:01:00.0/vendor: a directory, not a regular file"));
  }
  SECTION("a character device (never opened)") {
    Tree t;
    fs::create_symlink("/dev/zero", t.gpu / "config");
    CHECK_THAT(load_error(t),
               Catch::Contains("0000:01:00.0/config: a character device, not a regular file"));
  }
  SECTION("a file where a device directory is expected") {
    Tree t;
    vmxkit::test::write_bytes(t.devices / "0000:05:00.0", "0x10de\n");
    CHECK_THAT(load_error(t), Catch::Contains("0000:05:00.0: not a directory"));
  }
  SECTION("a file where the infiniband directory is expected") {
    Tree t;
    t.put("infiniband", "mlx5_0\n");
    CHECK_THAT(load_error(t), Catch::Contains("0000:01:00.0/infiniband: not a directory"));
  }
}

TEST_CASE("sysfs loader caps each attribute read", "[pci][sysfs][safety]") {
  SECTION("a resource file over 64 KiB") {
    Tree t;
    std::string big;
    while (big.size() <= (std::size_t{64} << 10)) {
      big += "0x0000000000000000 0x0000000000000000 0x0000000000000000\n";
    }
    t.put("resource", big);
    CHECK_THAT(load_error(t), Catch::Contains("0000:01:00.0/resource: larger than 65536 bytes"));
  }
  SECTION("a config space over 4096 bytes") {
    Tree t;
    t.put("config", std::string(4097, '\0'));
    CHECK_THAT(load_error(t), Catch::Contains("0000:01:00.0/config: larger than 4096 bytes"));
  }
  SECTION("a number file with more than a number") {
    Tree t;
    t.put("vendor", "0x10de" + std::string(100, ' ') + "\n");
    CHECK_THAT(load_error(t), Catch::Contains("0000:01:00.0/vendor: larger than 64 bytes"));
  }
  SECTION("a full 4096-byte config space and a 64-byte number are read") {
    Tree t;
    std::string config(4096, '\0');
    config[0] = '\xde';
    config[1] = '\x10';
    t.put("config", config);
    t.put("numa_node", "1" + std::string(62, ' ') + "\n");
    const auto host = t.load();
    REQUIRE(host.find(Bdf{0, 1, 0, 0}) != nullptr);
    CHECK(host.find(Bdf{0, 1, 0, 0})->numa_node == 1);
  }
}

TEST_CASE("sysfs loader skips a region above 2^52 bytes with a warning", "[pci][sysfs][mmio]") {
  Tree t;
  t.put("resource",
        "0x0000000000000000 0x000fffffffffffff 0x000000000014220c\n"    // 2^52: kept
        "0x0000000000000000 0x0010000000000000 0x000000000014220c\n");  // 2^52 + 1: not a BAR
  const auto host = t.load();
  const auto* gpu = host.find(Bdf{0, 1, 0, 0});
  REQUIRE(gpu != nullptr);
  REQUIRE(gpu->bar(0) != nullptr);
  CHECK(gpu->bar(0)->size == vmxkit::pci::kMaxBarBytes);
  CHECK(gpu->bar(1) == nullptr);
  CHECK(warned(host, "0000:01:00.0/resource: line 2: a region above 4096T (2^52 bytes); ignored"));
}

TEST_CASE("sysfs loader skips an unreadable attribute with a warning naming it",
          "[pci][sysfs][safety]") {
  Tree t;
  // Reading /proc/self/mem at offset 0 fails with EIO, also as root (who may read any mode).
  fs::create_symlink("/proc/self/mem", t.gpu / "config");
  const auto host = t.load();
  const auto* gpu = host.find(Bdf{0, 1, 0, 0});
  REQUIRE(gpu != nullptr);
  CHECK(gpu->vendor_id == 0x10de);  // the other attributes still count
  CHECK(warned(host, "0000:01:00.0/config: cannot read it ("));
}

TEST_CASE("sysfs loader skips a dangling entry with a warning", "[pci][sysfs]") {
  Tree t;
  fs::create_directory_symlink("../nowhere/0000:06:00.0", t.devices / "0000:06:00.0");
  const auto host = t.load();
  CHECK(host.find(Bdf{0, 6, 0, 0}) == nullptr);
  CHECK(host.find(Bdf{0, 1, 0, 0}) != nullptr);
  CHECK(warned(host, "0000:06:00.0: a dangling symbolic link; the device is skipped"));
}
