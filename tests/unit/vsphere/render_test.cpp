// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vsphere/render.h"

#include <catch2/catch.hpp>

#include "golden.h"
#include "spec_samples.h"
#include "vmxkit/core/error.h"
#include "vmxkit/vmx/format.h"
#include "vmxkit/vsphere/configspec.h"

using namespace vmxkit;
using namespace vmxkit::vsphere;

TEST_CASE("output formats have stable names", "[spec][render]") {
  for (const char* n : {"vmx", "configspec-xml", "soap", "vi-json", "govc", "powercli"}) {
    const auto f = parse_output_format(n);
    REQUIRE(f.has_value());
    CHECK(to_string(*f) == n);
  }
  CHECK_FALSE(parse_output_format("json").has_value());
}

TEST_CASE("the govc script sets extraConfig, memory, the pin and adds DirectPath devices",
          "[spec][render][govc]") {
  const std::string sh = render_govc(test::plan_config());
  test::check_golden("plan.govc.sh", sh);
  CHECK(sh.rfind("#!/bin/sh\n", 0) == 0);
  CHECK(sh.find("govc device.pci.add -vm \"$VM\" '0000:3b:00.0'") != std::string::npos);
  CHECK(sh.find("govc device.pci.add -vm \"$VM\" '0000:86:00.1'") != std::string::npos);
  CHECK(sh.find("-e 'pciPassthru.64bitMMIOSizeGB=256'") != std::string::npos);
  CHECK(sh.find("# pciPassthru2: vGPU profile grid_a100-40c") != std::string::npos);
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
  const std::string text = render(test::plan_config(), OutputFormat::vmx);
  CHECK(text == test::kPlanVmx);
  const auto doc = vmx::Document::parse(text);
  CHECK(vmx::canonical_form(doc) == text);
  const VmConfig odd = vmx::to_vm_config(vmx::Document::parse("a = \"x|22y||\"\n"));
  CHECK(render(odd, OutputFormat::vmx) == "a = \"x|22y|7C|7C\"\n");
}

TEST_CASE("SOAP rendering needs a VM moref", "[spec][render]") {
  CHECK_THROWS_WITH(render(test::plan_config(), OutputFormat::soap),
                    Catch::Contains("--vm vm-123"));
  RenderOptions o;
  o.vm = "vm-1";
  CHECK(render(test::plan_config(), OutputFormat::soap, o).find(">vm-1</_this>") !=
        std::string::npos);
}

TEST_CASE("a device id that cannot be converted is an error naming the setting", "[spec][render]") {
  const VmConfig cfg = vmx::to_vm_config(vmx::Document::parse(
      "pciPassthru0.present = \"TRUE\"\npciPassthru0.id = \"0000:zz:00.0\"\n"));
  CHECK_THROWS_WITH(render(cfg, OutputFormat::configspec_xml),
                    "pciPassthru0.id = \"0000:zz:00.0\": expected a PCI address such as "
                    "00000:059:00.0");
}
