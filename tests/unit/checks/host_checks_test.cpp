// SPDX-License-Identifier: Apache-2.0
// The host checks (HOST001...) as `vmxkit host-check` runs them.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "support/host_util.h"
#include "support/support.h"
#include "vmxkit/analysis/readiness.h"
#include "vmxkit/checks/host_context.h"
#include "vmxkit/checks/owner_words.h"
#include "vmxkit/formats/host/cmdline.h"

using vmxkit::Bdf;
using vmxkit::test::host_from;
using vmxkit::test::socket;

TEST_CASE("host-check reports IOMMU, SR-IOV, ACS and ATS with the fixing command",
          "[pci][host-check]") {
  using vmxkit::checks::check_host;
  using vmxkit::pci::parse_kernel_cmdline;
  const auto host = host_from({{"h.txt", socket(0x10, 0, {"gpu", "nic-ats-off"}, true)}});
  auto ids = [](std::vector<vmxkit::checks::Finding>& f) {
    // The first finding says what kind of host the advice is for (tested below).
    REQUIRE(!f.empty());
    CHECK(f.front().check->name == "host-kind");
    f.erase(f.begin());
    std::vector<std::string> out;
    for (const auto& x : f) out.push_back(std::string(x.check->name));
    return out;
  };
  const auto grub = parse_kernel_cmdline(
      "# x\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet amd_iommu=off iommu=pt\"\nGRUB_CMDLINE_LINUX=\"\"\n",
      "grub");
  CHECK(grub.from_grub);
  CHECK(grub.line == 2);
  auto f = check_host(host, grub);
  CHECK(ids(f) ==
        std::vector<std::string>{"iommu-off", "ats-disabled", "acs-redirect", "acs-redirect"});
  CHECK(f[1].fix == "mlxconfig -d 0000:14:00.0 set ATS_ENABLED=true, then reboot the host");
  f = check_host(host, parse_kernel_cmdline("BOOT_IMAGE=/vmlinuz intel_iommu=on\n", "cmdline"));
  CHECK(ids(f) ==
        std::vector<std::string>{"iommu-not-pt", "ats-disabled", "acs-redirect", "acs-redirect"});
  const auto ok = host_from({{"ok.txt", socket(0x10, 0, {"gpu", "nic"})}});
  f = check_host(ok, parse_kernel_cmdline("intel_iommu=on iommu=pt\n", "c"));
  CHECK(ids(f).empty());
  // ACS redirect with DirectTrans+ and ATS on the NIC (NVIDIA's VM configuration) is said, as
  // info; the same redirect without DirectTrans+ on the other NIC's port is a warning.
  const auto dt =
      host_from({{"dt.txt", vmxkit::test::read_bytes(vmxkit::test::source_path(
                                "tests/data/rules/host-one-switch-acs-directtrans.txt"))}});
  f = check_host(dt, std::nullopt, vmxkit::pci::HostKind::kvm);
  std::vector<std::string> acs;
  for (const auto& x : f) {
    if (x.check->name == "acs-redirect")
      acs.push_back(fmt::format("{} {}", x.subject, to_string(x.severity)));
  }
  CHECK(acs == std::vector<std::string>{"0000:17:01.0 warning", "0000:17:03.0 info"});
  // SR-IOV: VFs not created; more VFs than Total VFs.
  const auto sriov = host_from(
      {{"s.txt",
        "0000:00:00.0 Host bridge [0600]: Intel Corporation Device [8086:09a2]\n\n"
        "0000:00:03.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family "
        "[ConnectX-7] [15b3:1021]\n"
        "\tCapabilities: [180 v1] Single Root I/O Virtualization (SR-IOV)\n"
        "\t\tInitial VFs: 16, Total VFs: 16, Number of VFs: 0, Function Dependency Link: 00\n\n"
        "0000:00:04.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family "
        "[ConnectX-7] [15b3:1021]\n"
        "\tCapabilities: [180 v1] Single Root I/O Virtualization (SR-IOV)\n"
        "\t\tInitial VFs: 16, Total VFs: 16, Number of VFs: 32, Function Dependency Link: 00\n"}});
  f = check_host(sriov, std::nullopt);
  // Without a command line the IOMMU is not known, and without their Express capability the
  // NICs' ATS is not either: both are said, not passed over.
  CHECK(ids(f) == std::vector<std::string>{"sriov-no-vfs", "sriov-too-many-vfs", "not-checked",
                                           "not-checked"});
  CHECK(f[2].message.starts_with("IOMMU: not checked (needs: --cmdline /proc/cmdline"));
  CHECK(f[3].message.starts_with("ATS of 0000:00:03.0, 0000:00:04.0: not checked"));
  CHECK(f[0].fix.rfind("echo 8 > /sys/bus/pci/devices/0000:00:03.0/sriov_numvfs", 0) == 0);
  CHECK_THROWS_WITH(parse_kernel_cmdline("\n", "empty"),
                    Catch::StartsWith("empty: no kernel command line"));
}

TEST_CASE("host-check gives the IOMMU advice of the host's kind", "[pci][host-check]") {
  using vmxkit::checks::check_host;
  using vmxkit::pci::HostKind;
  using vmxkit::pci::parse_kernel_cmdline;
  const std::string gpu =
      "0000:00:00.0 Host bridge [0600]: Intel Corporation Device [8086:09a2]\n\n"
      "0000:00:03.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 PCIe] [10de:2331]\n"
      "\tKernel driver in use: DRIVER\n";
  auto with_driver = [&](std::string_view driver) {
    std::string text = gpu;
    text.replace(text.find("DRIVER"), 6, driver);
    return host_from({{"h.txt", text}});
  };
  const auto kvm = with_driver("vfio-pci");  // bound for a VM: a KVM host
  const auto plain = with_driver("nvidia");
  const auto quiet = parse_kernel_cmdline("BOOT_IMAGE=/vmlinuz quiet\n", "cmdline");
  const auto on = parse_kernel_cmdline("BOOT_IMAGE=/vmlinuz intel_iommu=on\n", "cmdline");
  auto find = [](const std::vector<vmxkit::checks::Finding>& f, std::string_view id) {
    const auto it =
        std::find_if(f.begin(), f.end(), [&](const auto& x) { return x.check->name == id; });
    return it == f.end() ? nullptr : &*it;
  };
  CHECK(vmxkit::pci::detect_host_kind(kvm, quiet) == HostKind::kvm);
  CHECK(vmxkit::pci::detect_host_kind(plain, quiet) == HostKind::unknown);
  CHECK(vmxkit::pci::detect_host_kind(
            plain, parse_kernel_cmdline("intel_iommu=on vfio-pci.ids=10de:2331\n", "c")) ==
        HostKind::kvm);
  // KVM host: the IOMMU must be on; pass-through mode is not asked for.
  auto f = check_host(kvm, quiet);
  CHECK(find(f, "host-kind") == nullptr);  // the kind is known: nothing to say
  REQUIRE(find(f, "iommu-off") != nullptr);
  CHECK(find(f, "iommu-off")->severity == vmxkit::Severity::error);
  CHECK(find(check_host(kvm, on), "iommu-not-pt") == nullptr);
  // Bare metal: an IOMMU left off is right; one that translates is not.
  f = check_host(plain, quiet, HostKind::bare_metal);
  CHECK(find(f, "host-kind") == nullptr);
  // A kind that contradicts the inputs is said.
  const auto told = check_host(kvm, quiet, HostKind::bare_metal);
  const auto* contradicted = find(told, "host-kind");
  REQUIRE(contradicted != nullptr);
  CHECK(contradicted->message ==
        "--host-kind says Linux bare metal, but the inputs show Linux KVM host: the advice is "
        "for Linux bare metal");
  CHECK(find(f, "iommu-off") == nullptr);
  CHECK(find(check_host(plain, on, HostKind::bare_metal), "iommu-not-pt") != nullptr);
  // Unknown kind: the KVM advice as a warning that names --host-kind.
  f = check_host(plain, quiet);
  REQUIRE(find(f, "iommu-off") != nullptr);
  CHECK(find(f, "iommu-off")->severity == vmxkit::Severity::warning);
  CHECK(find(f, "iommu-off")->message.find("--host-kind bare-metal") != std::string::npos);
}

TEST_CASE("ESXi ownership: passthrough enabled, pending a reboot, or kept for vGPU/SR-IOV",
          "[pci][host-check][esxcli]") {
  using vmxkit::pci::OwnerProblem;
  const auto check_esxi_owner = [](const auto& d, auto use) {
    return vmxkit::pci::esxi_owner_problem(d, use);
  };
  using vmxkit::pci::PassthroughUse;
  auto block = [](const char* bdf, const char* ids, const char* configured, const char* current,
                  const char* capable) {
    return fmt::format(
        "{}\n   Vendor ID: 0x{}\n   Device ID: 0x{}\n   Device Class: 0x{}\n"
        "   Configured Owner: {}\n   Current Owner: {}\n   Passthru Capable: {}\n"
        "   Parent Device: \n\n",
        bdf, std::string(ids).substr(0, 4), std::string(ids).substr(5, 4),
        std::string(ids).substr(10), configured, current, capable);
  };
  const auto host = host_from(
      {{"esx.txt", block("0000:00:01.0", "10de:2331:0302", "VM Passthru", "VM Passthru", "true") +
                       block("0000:00:02.0", "10de:2331:0302", "VM Passthru", "VMkernel", "true") +
                       block("0000:00:03.0", "15b3:1021:0207", "VMkernel", "VMkernel", "true") +
                       block("0000:00:04.0", "10de:2331:0302", "VMkernel", "VMkernel", "false")}});
  const auto& ready = host.at(*host.index_of(Bdf{0, 0, 1, 0}));
  const auto& pending = host.at(*host.index_of(Bdf{0, 0, 2, 0}));
  const auto& vmkernel = host.at(*host.index_of(Bdf{0, 0, 3, 0}));
  const auto& incapable = host.at(*host.index_of(Bdf{0, 0, 4, 0}));
  CHECK(ready.configured_owner == "VM Passthru");
  CHECK(incapable.passthru_capable == false);
  CHECK(!check_esxi_owner(ready, PassthroughUse::full));
  CHECK(check_esxi_owner(pending, PassthroughUse::full)->problem == OwnerProblem::pending);
  const auto off = check_esxi_owner(vmkernel, PassthroughUse::full);
  REQUIRE(off);
  CHECK(off->problem == OwnerProblem::not_enabled);
  CHECK(vmxkit::checks::owner_fix(*off).rfind(
            "esxcli hardware pci pcipassthru set -d 0000:00:03.0 -e true -a", 0) == 0);
  CHECK(check_esxi_owner(incapable, PassthroughUse::full)->problem == OwnerProblem::incapable);
  // vGPU and SR-IOV PFs want the opposite: the device with the VMkernel.
  CHECK(!check_esxi_owner(vmkernel, PassthroughUse::sriov_pf));
  const auto on = check_esxi_owner(ready, PassthroughUse::vgpu);
  REQUIRE(on);
  CHECK(on->problem == OwnerProblem::not_vmkernel);
  CHECK(vmxkit::checks::owner_fix(*on).rfind(
            "esxcli hardware pci pcipassthru set -d 0000:00:01.0 -e false -a", 0) == 0);
  // host-check cannot know the use: a device left with the VMkernel is only noted.
  std::vector<std::pair<std::string, vmxkit::Severity>> got;
  for (const auto& f : vmxkit::checks::check_host(host, std::nullopt)) {
    const std::string name(f.check->name);
    if (name.rfind("passthru-", 0) == 0) got.emplace_back(name, f.severity);
  }
  // In check id order: HOST005, HOST006, HOST007.
  CHECK(got == std::vector<std::pair<std::string, vmxkit::Severity>>{
                   {"passthru-incapable", vmxkit::Severity::warning},
                   {"passthru-off", vmxkit::Severity::info},
                   {"passthru-pending", vmxkit::Severity::warning}});
  // lspci captures say nothing about ESXi ownership: no finding, never a guess.
  const auto linux_host = host_from({{"ok.txt", socket(0x10, 0, {"gpu", "nic"})}});
  for (const auto& d : linux_host.devices()) CHECK(!check_esxi_owner(d, PassthroughUse::full));
}
