// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/render.h"

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "golden.h"
#include "spec_samples.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/formats/vmx/canonical.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/configspec_xml.h"

using namespace vmxkit;
using namespace vmxkit::vsphere;

TEST_CASE("the vSphere output formats are rows of the format table with writers",
          "[spec][render]") {
  for (const char* n : {"vmx", "configspec-xml", "soap", "vi-json", "govc", "powercli"}) {
    const formats::Format* f = formats::find(n);
    REQUIRE(f != nullptr);
    CHECK(f->output);
    CHECK(f->write != nullptr);
  }
  CHECK(formats::find("json") == nullptr);
  CHECK_THROWS_WITH(render(test::plan_config(), "ovf"),
                    Catch::StartsWith("'ovf' is not an output format"));
}

TEST_CASE("the govc script refuses, before any change, what no govc can add",
          "[spec][render][govc]") {
  // plan_config() has a vGPU, a Dynamic DirectPath device and an SR-IOV VF.
  const std::string sh = render_govc(test::plan_config());
  test::check_golden("plan.govc.sh", sh);
  CHECK(sh.rfind("#!/bin/sh\n", 0) == 0);
  CHECK(sh.find("pciPassthru3: a Dynamic DirectPath device") != std::string::npos);
  CHECK(sh.find("pciPassthru4: an SR-IOV network adapter") != std::string::npos);
  CHECK(sh.find("--format powercli") != std::string::npos);
  CHECK(sh.find("exit 1\n") != std::string::npos);
  CHECK(sh.find("govc vm.change") == std::string::npos);
  CHECK(sh.find("govc device.pci.add") == std::string::npos);
}

namespace {

// The plan's DirectPath devices and settings, without what govc cannot add.
VmConfig directpath_config(bool with_vgpu) {
  std::string text;
  std::istringstream in(test::kPlanVmx);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("pciPassthru3.", 0) == 0 || line.rfind("pciPassthru4.", 0) == 0) continue;
    if (!with_vgpu && line.rfind("pciPassthru2", 0) == 0) continue;
    text += line + "\n";
  }
  return vmx::to_vm_config(vmx::Document::parse(text));
}

struct ScriptRun {
  int code = -1;
  std::string log;  // one line per govc call: its arguments
  std::string err;
};

// Runs a generated script with a fake `govc` first on PATH: it logs its arguments, answers
// `version -require V` as a govc of version `govc_version` would, prints a VM whose firmware
// is `firmware` and whose power state is FAKE_GOVC_POWER (poweredOff unless `env` sets it) for
// vm.info, and lists the addresses in FAKE_GOVC_PCI (the plan's two DirectPath devices unless
// `env` sets it) for device.pci.ls, as govc/device/pci/ls.go prints its table.
ScriptRun run_with_fake_govc(const std::string& script, const std::string& govc_version,
                             const std::string& firmware, const std::string& env = {}) {
  test::TempDir dir;
  test::write_bytes(dir / "plan.sh", script);
  test::write_bytes(
      dir / "govc",
      "#!/bin/sh\n"
      "echo \"$*\" >> \"$FAKE_GOVC_LOG\"\n"
      "case \"$1\" in\n"
      "version)\n"
      "  [ \"${2:-}\" = -require ] || { echo \"govc $FAKE_GOVC_VERSION\"; exit 0; }\n"
      "  lowest=$(printf '%s\\n%s\\n' \"$3\" \"$FAKE_GOVC_VERSION\" | sort -V | head -n1)\n"
      "  [ \"$lowest\" = \"$3\" ] && exit 0\n"
      "  echo \"govc: version $3 or higher is required, this is version "
      "$FAKE_GOVC_VERSION\" >&2; exit 1;;\n"
      "vm.info) printf '{\"VirtualMachines\":[{\"Config\":{\"Firmware\":\"%s\"},"
      "\"Runtime\":{\"PowerState\":\"%s\"}}]}\\n' \"$FAKE_GOVC_FIRMWARE\" "
      "\"${FAKE_GOVC_POWER:-poweredOff}\";;\n"
      "device.pci.ls) echo 'System ID  Address  Device Name'\n"
      "  for a in ${FAKE_GOVC_PCI-0000:3b:00.0 0000:86:00.1}; do\n"
      "    echo \"69fb0dd6-0000-0000-0000-000000000000  $a  NVIDIA Corporation  GH100\"\n"
      "  done;;\n"
      "esac\n");
  std::filesystem::permissions(dir / "govc", std::filesystem::perms::owner_all);
  const std::string command = "cd '" + dir.path().string() + "' && PATH=\"$PWD:$PATH\" " +
                              "FAKE_GOVC_LOG=\"$PWD/log\" FAKE_GOVC_VERSION=" + govc_version +
                              " FAKE_GOVC_FIRMWARE=" + firmware + " VM=gpu-vm " + env +
                              " sh plan.sh 2> err";
  ScriptRun r;
  const int status = std::system(command.c_str());
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (std::filesystem::exists(dir / "log")) r.log = test::read_bytes(dir / "log");
  r.err = test::read_bytes(dir / "err");
  return r;
}

// Whether the fake govc's log holds a call that changes the VM.
bool changed_the_vm(const std::string& log) {
  for (const char* verb : {"vm.change", "device.boot", "device.pci.add", "gpu.vm.add"}) {
    if (log.find(verb) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("the govc script sets firmware with device.boot and adds DirectPath devices",
          "[spec][render][govc]") {
  const std::string sh = render_govc(directpath_config(false));
  CHECK(sh.find("govc version -require 0.25.0") != std::string::npos);
  CHECK(sh.find("govc device.boot -vm \"$VM\" -firmware 'efi'\n") != std::string::npos);
  CHECK(sh.find("govc device.pci.add -vm \"$VM\" '0000:3b:00.0'") != std::string::npos);
  CHECK(sh.find("govc device.pci.add -vm \"$VM\" '0000:86:00.1'") != std::string::npos);
  CHECK(sh.find("-e 'pciPassthru.64bitMMIOSizeGB=256'") != std::string::npos);
  // The firmware check comes before the first change.
  CHECK(sh.find("FIRMWARE_CHANGE") < sh.find("govc vm.change"));
}

TEST_CASE("the govc script adds vGPUs with gpu.vm.add on govc 0.49.0 and later",
          "[spec][render][govc]") {
  const std::string sh = render_govc(directpath_config(true));
  CHECK(sh.find("govc version -require 0.49.0") != std::string::npos);
  CHECK(sh.find("govc gpu.vm.add -vm \"$VM\" -profile 'grid_a100-40c'\n") != std::string::npos);
}

TEST_CASE("the govc script run against a fake govc applies what it says or exits 1 unchanged",
          "[spec][render][govc][script]") {
  SECTION("SR-IOV and Dynamic DirectPath: exit 1, no govc call") {
    const ScriptRun r = run_with_fake_govc(render_govc(test::plan_config()), "0.50.0", "efi");
    CHECK(r.code == 1);
    CHECK(r.log.empty());
    CHECK(r.err.find("SR-IOV network adapter") != std::string::npos);
    CHECK(r.err.find("--format powercli") != std::string::npos);
  }
  SECTION("vGPU on govc 0.24.1: exit 1 before any change") {
    const ScriptRun r = run_with_fake_govc(render_govc(directpath_config(true)), "0.24.1", "efi");
    CHECK(r.code == 1);
    CHECK(r.log == "version -require 0.49.0\n");
    CHECK(r.err.find("gpu.vm.add needs govc 0.49.0") != std::string::npos);
  }
  SECTION("vGPU on govc 0.49.0: applied") {
    const ScriptRun r = run_with_fake_govc(render_govc(directpath_config(true)), "0.49.0", "efi");
    CHECK(r.code == 0);
    CHECK(r.log.find("gpu.vm.add -vm gpu-vm -profile grid_a100-40c\n") != std::string::npos);
  }
  SECTION("DirectPath on govc 0.24.0 and 0.24.2 (deviceId in decimal): exit 1 unchanged") {
    for (const char* version : {"0.24.0", "0.24.2"}) {
      INFO(version);
      const ScriptRun r = run_with_fake_govc(render_govc(directpath_config(false)), version, "efi");
      CHECK(r.code == 1);
      CHECK_FALSE(changed_the_vm(r.log));
      CHECK(r.err.find("needs govc 0.25.0 or later, or 0.24.1") != std::string::npos);
      CHECK(r.err.find(std::string("this is govc ") + version) != std::string::npos);
    }
  }
  SECTION("DirectPath on govc 0.24.1 and 0.25.0 (deviceId in hex): applied") {
    for (const char* version : {"0.24.1", "0.25.0", "0.57.0"}) {
      INFO(version);
      const ScriptRun r = run_with_fake_govc(render_govc(directpath_config(false)), version, "efi");
      CHECK(r.code == 0);
      CHECK(r.log.find("device.pci.add -vm gpu-vm 0000:86:00.1\n") != std::string::npos);
    }
  }
  SECTION("a powered-on VM: exit 1 before any change") {
    const ScriptRun r = run_with_fake_govc(render_govc(directpath_config(false)), "0.25.0", "efi",
                                           "FAKE_GOVC_POWER=poweredOn");
    CHECK(r.code == 1);
    CHECK_FALSE(changed_the_vm(r.log));
    CHECK(r.err.find("is not powered off") != std::string::npos);
  }
  SECTION("a device the host does not allow for passthrough: exit 1 before any change") {
    const ScriptRun r = run_with_fake_govc(render_govc(directpath_config(false)), "0.25.0", "efi",
                                           "FAKE_GOVC_PCI=0000:3b:00.0");
    CHECK(r.code == 1);
    CHECK_FALSE(changed_the_vm(r.log));
    CHECK(r.log.find("device.pci.ls -vm gpu-vm\n") != std::string::npos);
    CHECK(r.err.find("0000:86:00.1 is not in the host's allowed passthrough device list") !=
          std::string::npos);
  }
  SECTION("an EFI VM: device.boot and device.pci.add called, exit 0") {
    const ScriptRun r = run_with_fake_govc(render_govc(directpath_config(false)), "0.24.1", "efi");
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    CHECK(r.log.find("device.boot -vm gpu-vm -firmware efi\n") != std::string::npos);
    CHECK(r.log.find("device.pci.add -vm gpu-vm 0000:3b:00.0\n") != std::string::npos);
  }
  SECTION("a BIOS VM: exit 1 unchanged unless FIRMWARE_CHANGE=yes") {
    const std::string sh = render_govc(directpath_config(false));
    ScriptRun r = run_with_fake_govc(sh, "0.24.1", "bios");
    CHECK(r.code == 1);
    CHECK(r.log.find("vm.change") == std::string::npos);
    CHECK(r.err.find("FIRMWARE_CHANGE=yes") != std::string::npos);
    r = run_with_fake_govc(sh, "0.24.1", "bios", "FIRMWARE_CHANGE=yes");
    CHECK(r.code == 0);
    CHECK(r.log.find("device.boot -vm gpu-vm -firmware efi\n") != std::string::npos);
  }
}

TEST_CASE("the PowerCLI script asks before it switches the firmware, ahead of any change",
          "[spec][render][powercli]") {
  const std::string ps = render_powercli(test::plan_config());
  CHECK(ps.find("[CmdletBinding()]\nparam(") != std::string::npos);
  CHECK(ps.find("[switch]$Force") != std::string::npos);
  CHECK(ps.find("Write-Warning") != std::string::npos);
  CHECK(ps.find("$PSCmdlet.ShouldContinue(") != std::string::npos);
  CHECK(ps.find("$vm.ExtensionData.Config.Firmware") < ps.find("ReconfigVM"));
}

TEST_CASE(
    "the PowerCLI script checks power state and the host's passthrough list, then makes "
    "every change in one ReconfigVM",
    "[spec][render][powercli]") {
  const std::string ps = render_powercli(directpath_config(false));
  const std::size_t first_change = ps.find(".ReconfigVM($spec)");
  REQUIRE(first_change != std::string::npos);
  CHECK(ps.find(".ReconfigVM(", first_change + 1) == std::string::npos);
  CHECK(ps.find("New-AdvancedSetting") == std::string::npos);
  CHECK(ps.find("$spec.ExtraConfig = @(") != std::string::npos);
  CHECK(ps.find("if ($vm.PowerState -ne 'PoweredOff')") < first_change);
  CHECK(ps.find("QueryConfigTarget($vm.ExtensionData.Runtime.Host)") < first_change);
  for (const char* id : {"0000:3b:00.0", "0000:86:00.1"}) {
    CHECK(ps.find(std::string("if ($allowed -notcontains '") + id + "')") < first_change);
  }
  CHECK(ps.find("Not checked: whether a device is held by another") != std::string::npos);
}

TEST_CASE("the ConfigSpec XML says before firmware that switching it breaks an installed guest",
          "[spec][render]") {
  const std::string xml = render(test::plan_config(), "configspec-xml");
  const std::size_t comment = xml.find("<!-- vmxkit: on an existing VM, switching");
  REQUIRE(comment != std::string::npos);
  CHECK(comment < xml.find("<firmware>efi</firmware>"));
  CHECK(xml.find("MMIO005") != std::string::npos);
  // Still a document the readers take, with the same settings.
  CHECK(to_vm_config(read_configspec_xml(SourceFile("spec.xml", xml)).spec).settings.size() ==
        test::plan_config().settings.size());
  RenderOptions o;
  o.vm = "vm-1";
  CHECK(render(test::plan_config(), "soap", o).find("<!-- vmxkit:") != std::string::npos);
}

TEST_CASE("an SR-IOV VF's physical function backing carries the PF's ids and the host's systemId",
          "[spec][render][sriov]") {
  // Without the host's facts: the .vmx's values, as before.
  std::string xml = render(test::plan_config(), "configspec-xml");
  CHECK(xml.find("<systemId>BYPASS</systemId>") != std::string::npos);
  // With them, as vhpc-toolkit's add_sriov_adapter sends them.
  RenderOptions o;
  o.physical_functions.push_back(
      {*parse_bdf("0000:1a:00.1"), 0x15b3, 0x101d, "5fe9d4dc-68b1-4c3a-9d1e-0123456789ab"});
  const ConfigSpec spec = output_spec(test::plan_config(), o);
  REQUIRE(spec.device_change.back().physical_function);
  const DeviceBacking& pf = *spec.device_change.back().physical_function;
  CHECK(pf.id == "0000:1a:00.1");
  CHECK(pf.device_id == "101d");
  CHECK(pf.vendor_id == 5555);
  CHECK(pf.system_id == "5fe9d4dc-68b1-4c3a-9d1e-0123456789ab");
  xml = render(test::plan_config(), "configspec-xml", o);
  const std::size_t pf_at = xml.find("<physicalFunctionBacking");
  REQUIRE(pf_at != std::string::npos);
  CHECK(xml.find("<deviceId>101d</deviceId>", pf_at) != std::string::npos);
  CHECK(xml.find("<systemId>5fe9d4dc-68b1-4c3a-9d1e-0123456789ab</systemId>", pf_at) !=
        std::string::npos);
  CHECK(xml.find("<vendorId>5555</vendorId>", pf_at) != std::string::npos);
  CHECK(render_powercli(test::plan_config(), o).find("$pf.DeviceId = '101d'") != std::string::npos);
  // The .vmx keeps the form ESXi writes for a VF.
  CHECK(render(test::plan_config(), "vmx", o)
            .find("pciPassthru4.systemId = "
                  "\"BYPASS\"") != std::string::npos);
}

TEST_CASE("govc arguments are quoted for the shell", "[spec][render][govc]") {
  const VmConfig cfg =
      vmx::to_vm_config(vmx::Document::parse("annotation = \"it's |22x|22 $HOME\"\n"));
  CHECK(render_govc(cfg).find("-e 'annotation=it'\\''s \"x\" $HOME'") != std::string::npos);
}

TEST_CASE("the PowerCLI script uses New-AdvancedSetting and ReconfigVM through Get-View",
          "[spec][render][powercli]") {
  const std::string ps = render_powercli(test::plan_config());
  test::check_golden("plan.powercli.ps1", ps);
  CHECK(ps.find("$backing.VendorId = -32634") != std::string::npos);
  CHECK(ps.find("$device.Backing.Vgpu = 'grid_a100-40c'") != std::string::npos);
  CHECK(ps.find("VendorId = 4318; DeviceId = 8433") != std::string::npos);
  CHECK(ps.find("$spec.MemoryReservationLockedToMax = $true") != std::string::npos);
}

TEST_CASE("the vmx fragment is in VMware's writer form", "[spec][render][vmx]") {
  const std::string text = render(test::plan_config(), "vmx");
  CHECK(text == test::kPlanVmx);
  const auto doc = vmx::Document::parse(text);
  CHECK(vmx::canonical_form(doc) == text);
  const VmConfig odd = vmx::to_vm_config(vmx::Document::parse("a = \"x|22y||\"\n"));
  CHECK(render(odd, "vmx") == "a = \"x|22y|7C|7C\"\n");
}

TEST_CASE("SOAP rendering needs a VM moref", "[spec][render]") {
  CHECK_THROWS_WITH(render(test::plan_config(), "soap"), Catch::Contains("--vm vm-123"));
  RenderOptions o;
  o.vm = "vm-1";
  CHECK(render(test::plan_config(), "soap", o).find(">vm-1</_this>") != std::string::npos);
}

TEST_CASE("a device id that cannot be converted is an error naming the setting", "[spec][render]") {
  const VmConfig cfg = vmx::to_vm_config(vmx::Document::parse(
      "pciPassthru0.present = \"TRUE\"\npciPassthru0.id = \"0000:zz:00.0\"\n"));
  CHECK_THROWS_WITH(render(cfg, "configspec-xml"),
                    "pciPassthru0.id = \"0000:zz:00.0\": expected a PCI address such as "
                    "00000:059:00.0");
}
