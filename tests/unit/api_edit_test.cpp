// SPDX-License-Identifier: Apache-2.0
// The public API's rule catalogue, `.vmx` edits, write path and offline apply, through its one
// header: what the Python package's Document, rules(), Document.save() and config_change() are
// made of.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "support/support.h"
#include "vmxkit/vmxkit.h"

using Catch::Contains;

namespace {

const char* kVmx = "# a comment\r\nfirmware = \"bios\"\r\nMemSize = 4096 # MB\r\nbroken line\r\n";

}  // namespace

TEST_CASE("rules() lists the catalogue in force and find_rule() finds a rule by id",
          "[api][rules]") {
  const std::vector<vmxkit::RuleInfo> all = vmxkit::rules();
  REQUIRE(all.size() > 50);
  CHECK(std::is_sorted(all.begin(), all.end(),
                       [](const auto& a, const auto& b) { return a.id < b.id; }));
  CHECK(std::none_of(all.begin(), all.end(), [](const auto& r) { return r.removed; }));
  for (const vmxkit::RuleKind kind :
       {vmxkit::RuleKind::lint, vmxkit::RuleKind::host, vmxkit::RuleKind::guest}) {
    INFO(vmxkit::to_string(kind));
    CHECK(std::any_of(all.begin(), all.end(), [&](const auto& r) { return r.kind == kind; }));
  }
  const std::optional<vmxkit::RuleInfo> vmx001 = vmxkit::find_rule("VMX001");
  REQUIRE(vmx001);
  CHECK(vmx001->id == "VMX001");
  CHECK_FALSE(vmx001->name.empty());
  CHECK_FALSE(vmx001->doc.empty());
  CHECK(vmx001->kind == vmxkit::RuleKind::lint);
  CHECK_FALSE(vmxkit::find_rule("vmx001"));
  CHECK_FALSE(vmxkit::find_rule("NOPE999"));
}

TEST_CASE("VmxDocument reads entries and problems, vmx_set/vmx_unset keep every other byte",
          "[api][vmx]") {
  const vmxkit::VmxDocument doc = vmxkit::VmxDocument::parse(kVmx, "vm.vmx");
  CHECK(doc.bytes() == kVmx);
  CHECK(doc.path() == "vm.vmx");
  CHECK(doc.get("memsize") == "4096");
  CHECK_FALSE(doc.get("nvram"));
  const std::vector<vmxkit::VmxEntry> entries = doc.entries();
  REQUIRE(entries.size() == 2);
  CHECK(entries[1].key == "MemSize");
  CHECK(entries[1].value == "4096");
  const std::vector<vmxkit::VmxProblem> problems = doc.problems();
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].location.line == 4);
  CHECK_FALSE(problems[0].message.empty());

  const std::string set = vmxkit::vmx_set(kVmx, "memsize", "8192");
  CHECK(set == "# a comment\r\nfirmware = \"bios\"\r\nMemSize = 8192 # MB\r\nbroken line\r\n");
  bool removed = false;
  CHECK(vmxkit::vmx_unset(set, "FIRMWARE", &removed) ==
        "# a comment\r\nMemSize = 8192 # MB\r\nbroken line\r\n");
  CHECK(removed);
  CHECK(vmxkit::vmx_unset(kVmx, "nvram", &removed) == kVmx);
  CHECK_FALSE(removed);
  CHECK(vmxkit::VmxDocument::parse(set).get("MEMSIZE") == "8192");
}

TEST_CASE("write_file_bytes edits the file read by compare-and-swap and keeps its mode",
          "[api][files]") {
  const vmxkit::test::TempDir dir;
  const std::string path = (dir / "vm.vmx").string();
  CHECK(vmxkit::write_file_bytes(path, kVmx));  // a new file
  REQUIRE(::chmod(path.c_str(), 0640) == 0);
  const std::string read = vmxkit::read_file_bytes(path);
  CHECK(read == kVmx);

  vmxkit::WriteOptions edit;
  edit.edit_of = vmxkit::EditedFile{path, read};
  CHECK_FALSE(vmxkit::write_file_bytes(path, read, edit));  // nothing changed: not written
  const std::string changed = vmxkit::vmx_set(read, "firmware", "efi");
  CHECK(vmxkit::write_file_bytes(path, changed, edit));
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);

  // The file no longer holds what `edit` was made from: refused, the file left as it is.
  CHECK_THROWS_WITH(vmxkit::write_file_bytes(path, kVmx, edit),
                    Contains("changed on disk since it was read"));
  CHECK(vmxkit::read_file_bytes(path) == changed);
  // Another target is written whole.
  const std::string copy = (dir / "copy.vmx").string();
  CHECK(vmxkit::write_file_bytes(copy, kVmx, edit));
  CHECK(vmxkit::read_file_bytes(copy) == kVmx);
}

TEST_CASE("write_file_bytes refuses while the VM holds its lock, unless told to ignore it",
          "[api][files]") {
  const vmxkit::test::TempDir dir;
  const std::string path = (dir / "vm.vmx").string();
  vmxkit::test::write_bytes(path, kVmx);
  CHECK(vmxkit::vm_lock(path).empty());
  std::filesystem::create_directory(dir / "vm.vmx.lck");
  CHECK(vmxkit::vm_lock(path) == (dir / "vm.vmx.lck").string());
  vmxkit::WriteOptions options;
  options.override_hint = "pass --force";
  CHECK_THROWS_WITH(vmxkit::write_file_bytes(path, "x = \"1\"\n", options),
                    Contains("pass --force"));
  CHECK(vmxkit::read_file_bytes(path) == kVmx);
  options.ignore_vm_lock = true;
  CHECK(vmxkit::write_file_bytes(path, "x = \"1\"\n", options));
  CHECK_THROWS_AS(vmxkit::read_file_bytes((dir / "missing.vmx").string()), vmxkit::Error);
}

TEST_CASE("config_change gives the change a plan makes to a VM as read from a server",
          "[api][apply]") {
  const std::string vm =
      vmxkit::test::source_path("tests/data/vsphere/clients/pyvmomi-configinfo.xml").string();
  // Keeps the VM's GPU (0000:3b:00.0), drops its NIC (0000:3c:00.0), adds a GPU.
  const std::string plan =
      "pciPassthru0.present = \"TRUE\"\n"
      "pciPassthru0.id = \"0000:3b:00.0\"\n"
      "pciPassthru0.deviceId = \"0x2330\"\n"
      "pciPassthru0.vendorId = \"0x10de\"\n"
      "pciPassthru0.systemId = \"5fe9d4dc-68b1-4c3a-9d1e-0123456789ab\"\n"
      "pciPassthru1.present = \"TRUE\"\n"
      "pciPassthru1.id = \"0000:5e:00.0\"\n"
      "pciPassthru1.deviceId = \"0x2330\"\n"
      "pciPassthru1.vendorId = \"0x10de\"\n"
      "pciPassthru1.systemId = \"5fe9d4dc-68b1-4c3a-9d1e-0123456789ab\"\n";
  const vmxkit::ConfigChange change =
      vmxkit::config_change(vm, vmxkit::DocumentSource::from_bytes("plan.vmx", plan));
  CHECK_FALSE(change.nothing_to_send);
  CHECK(change.devices_change);
  CHECK(change.placeholders.empty());
  CHECK_THAT(change.spec_xml, Contains("0000:5e:00.0"));
  auto has = [&](char sign, const std::string& what) {
    return std::any_of(change.diff.begin(), change.diff.end(), [&](const vmxkit::DiffLine& l) {
      return l.sign == sign && l.what.find(what) != std::string::npos;
    });
  };
  CHECK(has('-', "0000:3c:00.0"));
  CHECK(has('+', "0000:5e:00.0"));
  CHECK_FALSE(has('+', "0000:3b:00.0"));

  // The VM document is read and judged before the plan: a .vmx holds no device keys.
  CHECK_THROWS_WITH(
      vmxkit::config_change(vmxkit::DocumentSource::from_bytes("vm.vmx", kVmx), "no-such-plan.vmx"),
      Contains("vm.vmx") && !Contains("no-such-plan"));
  CHECK_THROWS_WITH(vmxkit::config_change(vm, "no-such-plan.vmx"), Contains("no-such-plan.vmx"));
}
