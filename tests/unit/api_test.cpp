// SPDX-License-Identifier: Apache-2.0
// The public API through its one header: every facade function, and the errors it reports.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "support/support.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/vmxkit.h"

using Catch::Contains;
using Catch::StartsWith;

namespace {

const char* kSystemId = "65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f";

std::string example_host_path() {
  return vmxkit::test::source_path("examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt")
      .string();
}

std::string example_vmx_path() {
  return vmxkit::test::source_path("examples/vmx/gpu-rdma-worker.vmx").string();
}

const vmxkit::Host& example_host() {
  static const vmxkit::Host host = vmxkit::load_host({example_host_path()});
  return host;
}

bool has_rule(const vmxkit::LintReport& r, std::string_view id) {
  return std::any_of(r.diagnostics.begin(), r.diagnostics.end(),
                     [&](const vmxkit::Diagnostic& d) { return d.rule_id == id; });
}

std::string contains_text(const std::vector<std::string>& lines, std::string_view text) {
  for (const std::string& l : lines) {
    if (l.find(text) != std::string::npos) return l;
  }
  return {};
}

const char* kTwoSystemOvf =
    "<Envelope xmlns=\"http://schemas.dmtf.org/ovf/envelope/1\" "
    "xmlns:ovf=\"http://schemas.dmtf.org/ovf/envelope/1\"><References/>"
    "<VirtualSystemCollection ovf:id=\"c\"><VirtualSystem ovf:id=\"a\"/>"
    "<VirtualSystem ovf:id=\"b\"/></VirtualSystemCollection></Envelope>";

}  // namespace

TEST_CASE("version() is the project version CMake was given, the one --version prints", "[api]") {
  CHECK(vmxkit::version() == VMXKIT_PROJECT_VERSION);
  const auto r = vmxkit::test::run_cli({"--version"});
  CHECK(r.code == 0);
  CHECK(r.out == "vmxkit " + std::string(vmxkit::version()) + "\n");
}

TEST_CASE("load reads a .vmx with its malformed lines as diagnostics", "[api][load]") {
  const vmxkit::Input in = vmxkit::load(
      "vm.vmx", "memsize = \"4096\"\nfirmware \"efi\"\npciPassthru0.id = \"00000:059:00.0\"\n");
  CHECK(in.path == "vm.vmx");
  CHECK(in.format == "vmx");
  CHECK(vmxkit::find_format(in.format)->subject == "vm");
  REQUIRE(in.vms.size() == 1);
  CHECK(in.config().memory_mb() == 4096);
  CHECK(in.config().passthrough_devices().at(0).id == "00000:059:00.0");
  REQUIRE(in.diagnostics.size() == 1);
  CHECK(in.diagnostics[0].rule_id == "VMX001");
  CHECK(in.location(in.diagnostics[0].begin).line == 2);
}

TEST_CASE("load tells ConfigSpec XML, SOAP, VI/JSON and OVF from the content", "[api][load]") {
  const vmxkit::Input vmx = vmxkit::load_file(example_vmx_path());
  for (const auto& [format, name] : std::vector<std::pair<std::string, std::string>>{
           {"configspec-xml", "configspec-xml"}, {"soap", "soap"}, {"vi-json", "vi-json"}}) {
    const std::string text =
        vmxkit::render(vmx.config(), format, {.template_name = {}, .vm = "vm-7"});
    const vmxkit::Input in = vmxkit::load("spec", text);
    INFO(text);
    CHECK(in.format == name);
    CHECK(in.config().passthrough_devices().size() == 2);
    CHECK(in.config().get("pciPassthru.64bitMMIOSizeGB") == "128");
    if (name == "soap") CHECK(in.vm == "vm-7");
  }
  const vmxkit::Input ovf = vmxkit::load("two.ovf", kTwoSystemOvf);
  CHECK(ovf.format == "ovf");
  REQUIRE(ovf.vms.size() == 2);
  CHECK(ovf.vms[1].name == "b");
  CHECK_THROWS_WITH(ovf.config(),
                    "two.ovf: holds 2 virtual systems (a, b); pick one from Input::vms");
}

TEST_CASE("load throws vmxkit::Error with file:line:col for content it cannot read",
          "[api][load]") {
  try {
    (void)vmxkit::load("bad.xml", "<spec xmlns=\"urn:vim25\">\n  <memoryMB>\n");
    FAIL("accepted");
  } catch (const vmxkit::Error& e) {
    CHECK(e.path() == "bad.xml");
    CHECK(e.line() == 2);
    CHECK(e.column() == 13);
    CHECK_THAT(e.what(), StartsWith("bad.xml:2:13: malformed XML"));
  }
  CHECK_THROWS_AS(vmxkit::load("bad.json", "{\"_typeName\": "), vmxkit::Error);
  CHECK_THROWS_WITH(vmxkit::load_file("/nonexistent/vm.vmx"), Contains("/nonexistent/vm.vmx"));
}

TEST_CASE("lint runs the rules, a host enables the TOPO rules", "[api][lint]") {
  const vmxkit::Input in = vmxkit::load_file(example_vmx_path());
  const vmxkit::LintReport plain = vmxkit::lint(in);
  CHECK(plain.path == in.path);
  CHECK(plain.format == "vmx");
  REQUIRE(plain.diagnostics.size() == 4);
  CHECK(plain.diagnostics[0].rule_id == "MMIO005");
  CHECK(plain.location(plain.diagnostics[0].begin).line == 6);
  CHECK(plain.location(plain.diagnostics[0].begin).column == 13);
  CHECK(plain.count_at_least(vmxkit::Severity::error) == 3);
  CHECK(plain.count_at_least(vmxkit::Severity::warning) == 4);
  CHECK_FALSE(has_rule(plain, "TOPO002"));

  const vmxkit::LintReport on_host = vmxkit::lint(in, {.host = &example_host()});
  CHECK(has_rule(on_host, "TOPO002"));  // the file's ids do not match the host's devices

  const vmxkit::Input spec =
      vmxkit::load("s.xml", "<spec xmlns=\"urn:vim25\">\n  <firmware>uefi</firmware>\n</spec>\n");
  const vmxkit::LintReport xml = vmxkit::lint(spec);
  CHECK(xml.format == "configspec-xml");
  CHECK(has_rule(xml, "XML001"));
}

TEST_CASE("fix applies safe fixes, unsafe ones on request, and leaves vSphere documents",
          "[api][fix]") {
  const vmxkit::Input in = vmxkit::load_file(example_vmx_path());
  const vmxkit::FixResult safe = vmxkit::fix(in);
  CHECK(safe.fixes_applied == 1);
  CHECK(safe.bytes != in.bytes);
  CHECK(safe.remaining.diagnostics.size() == 3);
  const vmxkit::FixResult unsafe = vmxkit::fix(in, {.lint = {}, .unsafe = true});
  CHECK(unsafe.fixes_applied == 3);
  CHECK(unsafe.remaining.diagnostics.size() == 1);
  CHECK(std::find(unsafe.fixed_rules.begin(), unsafe.fixed_rules.end(), "MMIO004") !=
        unsafe.fixed_rules.end());
  // What the fixes did not touch is byte for byte what it was.
  CHECK(unsafe.bytes.rfind(".encoding = \"UTF-8\"\nconfig.version = \"8\"\n", 0) == 0);

  const vmxkit::Input spec =
      vmxkit::load("s.xml", "<spec xmlns=\"urn:vim25\">\n  <firmware>uefi</firmware>\n</spec>\n");
  const vmxkit::FixResult untouched = vmxkit::fix(spec, {.lint = {}, .unsafe = true});
  CHECK(untouched.bytes == spec.bytes);
  CHECK(untouched.fixes_applied == 0);
  CHECK(has_rule(untouched.remaining, "XML001"));
}

TEST_CASE("the catalogue finds models by alias and id, user files override it", "[api][catalog]") {
  const vmxkit::Catalog builtin;
  const auto h100 = builtin.find("H100-PCIe");
  REQUIRE(h100);
  CHECK(h100->id() == "10de:2331");
  CHECK(h100->role == vmxkit::DeviceRole::gpu);
  CHECK(vmxkit::to_string(h100->role) == "gpu");
  CHECK(builtin.find("10de:2331")->model == h100->model);
  CHECK(h100->nvlink == vmxkit::NvlinkSupport::bridge);
  CHECK_FALSE(h100->nvlink_bridge_gpus);
  CHECK(builtin.find("h200-nvl")->nvlink_bridge_gpus == 4u);
  CHECK(builtin.find("h100-sxm")->nvlink == vmxkit::NvlinkSupport::baseboard);
  CHECK(builtin.find("l40s")->nvlink == vmxkit::NvlinkSupport::no);
  CHECK(builtin.find("t4")->nvlink == vmxkit::NvlinkSupport::unknown);
  CHECK(vmxkit::to_string(vmxkit::NvlinkSupport::baseboard) == "baseboard");
  CHECK_FALSE(builtin.find("no-such-gpu"));
  CHECK(builtin.models().size() > 10);

  vmxkit::test::TempDir dir;
  vmxkit::test::write_bytes(dir / "mine.tsv",
                            "10de:9999\tnew-gpu\tNew GPU\tgpu\t-\t16\t-\t-\tunknown\t-\tlab\n");
  const vmxkit::Catalog mine = vmxkit::load_catalog({(dir / "mine.tsv").string()});
  REQUIRE(mine.find("new-gpu"));
  CHECK(mine.find("new-gpu")->origin == (dir / "mine.tsv").string() + ":1");
  CHECK(mine.find("h100-pcie"));  // the built-in entries stay
  CHECK_FALSE(builtin.find("new-gpu"));

  vmxkit::test::write_bytes(dir / "bad.tsv", "10de:1\tx\n");
  CHECK_THROWS_WITH(vmxkit::load_catalog({(dir / "bad.tsv").string()}),
                    StartsWith((dir / "bad.tsv").string() + ":1:1: "));
  CHECK_THROWS_AS(vmxkit::load_catalog({(dir / "missing.tsv").string()}), vmxkit::Error);
}

TEST_CASE("load_host reads captures from files or text and describes the devices", "[api][host]") {
  const vmxkit::Host& host = example_host();
  const vmxkit::HostDevice* gpu = host.find(vmxkit::Bdf{0, 0x18, 0, 0});
  REQUIRE(gpu);
  CHECK(gpu->role == vmxkit::DeviceRole::gpu);
  CHECK(gpu->model == "H100 PCIe");
  CHECK(gpu->vendor_id == 0x10de);
  CHECK(gpu->description == "0000:18:00.0 (H100 PCIe)");
  CHECK(host.find(vmxkit::Bdf{0, 0xfe, 0, 0}) == nullptr);
  CHECK(std::is_sorted(host.devices().begin(), host.devices().end(),
                       [](const auto& a, const auto& b) { return a.address < b.address; }));
  CHECK(host.catalog().find("h100-pcie"));

  const vmxkit::Host from_text = vmxkit::load_host(
      {vmxkit::HostSource::from_text("<stdin>", vmxkit::test::read_bytes(example_host_path()))});
  CHECK(from_text.devices().size() == host.devices().size());

  // The host's catalogue is the one it was loaded with.
  vmxkit::test::TempDir dir;
  vmxkit::test::write_bytes(
      dir / "mine.tsv", "10de:2331\th100-pcie\tMy H100\tgpu\t-\t80\t128G\t3:32M\tyes\t-\tlab\n");
  const vmxkit::Host mine =
      vmxkit::load_host({example_host_path()}, vmxkit::load_catalog({(dir / "mine.tsv").string()}));
  CHECK(mine.find(vmxkit::Bdf{0, 0x18, 0, 0})->model == "My H100");
  CHECK(mine.catalog().find("h100-pcie")->model == "My H100");

  CHECK_THROWS_WITH(vmxkit::load_host({vmxkit::HostSource::from_text("x.txt", "hello\n")}),
                    StartsWith("x.txt:1:1: "));
  CHECK_THROWS_WITH(vmxkit::load_host({"/nonexistent/lspci.txt"}),
                    Contains("/nonexistent/lspci.txt"));
}

TEST_CASE("analyze gives the GPU/NIC matrix and a verdict per pair", "[api][topo]") {
  const vmxkit::Topology t = vmxkit::analyze(example_host());
  REQUIRE(t.gpus.size() == 8);
  REQUIRE(t.nics.size() == 8);
  REQUIRE(t.matrix.size() == 16);
  CHECK(t.matrix[0][0] == vmxkit::PathClass::self);
  CHECK(t.gpus[0] == vmxkit::Bdf{0, 0x18, 0, 0});
  REQUIRE(t.best_nic.size() == 8);
  REQUIRE(t.best_nic[0]);
  CHECK(t.nics[*t.best_nic[0]] == vmxkit::Bdf{0, 0x19, 0, 0});
  const auto pair = std::find_if(t.pairs.begin(), t.pairs.end(), [&](const vmxkit::PairReport& p) {
    return p.a == t.gpus[0] && p.b == vmxkit::Bdf{0, 0x19, 0, 0};
  });
  REQUIRE(pair != t.pairs.end());
  CHECK(pair->path == vmxkit::PathClass::pix);
  CHECK(vmxkit::to_string(pair->path) == "PIX");
  CHECK(pair->verdict == vmxkit::Verdict::ok);
  CHECK(vmxkit::to_string(pair->verdict) == "ok");
  // Across the sockets there are pairs GPUDirect RDMA cannot use.
  CHECK(std::any_of(t.pairs.begin(), t.pairs.end(), [](const vmxkit::PairReport& p) {
    return p.path == vmxkit::PathClass::sys && p.verdict == vmxkit::Verdict::unsupported &&
           !p.reasons.empty();
  }));
}

TEST_CASE("size_mmio sizes host devices and catalogue models, and names what it cannot",
          "[api][mmio]") {
  const vmxkit::MmioSize on_host =
      vmxkit::size_mmio(&example_host(), {"0000:18:00.0", "0000:19:00.0"});
  CHECK(on_host.size_gb == 256);
  CHECK(on_host.bars.at(0).bar == "BAR1");
  CHECK(on_host.bars.at(0).size == std::uint64_t{128} << 30);
  CHECK(on_host.unknown.empty());
  CHECK_FALSE(on_host.lines.empty());

  const vmxkit::MmioSize model = vmxkit::size_mmio(nullptr, {"h100-pcie"});
  CHECK(model.size_gb == 256);  // KB 323402: 2 x 80 GB -> 256
  CHECK(model.kb_gb == 256u);
  CHECK(model.estimated);

  CHECK_THROWS_WITH(vmxkit::size_mmio(nullptr, {"0000:18:00.0"}),
                    "0000:18:00.0: an address needs the host it is on");
  CHECK_THROWS_WITH(vmxkit::size_mmio(&example_host(), {"0000:fe:00.0"}),
                    "0000:fe:00.0: no such device on the host");
  CHECK_THROWS_WITH(vmxkit::size_mmio(nullptr, {"h200-nvl-9"}),
                    StartsWith("h200-nvl-9: not an address"));
}

TEST_CASE(
    "plan notes once, after its pair verdicts, that its GPUs take an NVLink bridge lspci cannot "
    "show, but not for one GPU or vGPUs",
    "[api][plan][nvlink]") {
  vmxkit::PlanRequest request;
  request.gpus = {"auto"};
  request.gpu_count = 4;
  request.system_id = kSystemId;
  const vmxkit::Plan plan = vmxkit::plan(&example_host(), request);
  const std::vector<std::string>& lines = plan.explanation();
  const auto is_note = [](const std::string& l) { return l.find("NVLink bridge") != l.npos; };
  REQUIRE(std::count_if(lines.begin(), lines.end(), is_note) == 1);
  const auto note = std::find_if(lines.begin(), lines.end(), is_note);
  CHECK(*note ==
        "note: GPUs 0000:18:00.0, 0000:1a:00.0, 0000:3a:00.0, 0000:3c:00.0 (H100 PCIe) take an "
        "NVLink bridge, which the PCI inputs cannot show (a bridge is not a PCI device): the "
        "GPU<->GPU verdicts here are PCIe-only; give `nvidia-smi topo -m` with --host to include "
        "NVLink (catalogue 10de:2331; NVLink: NVAIE6 P2P table lists H100-80C (H100 PCIe 80GB: a "
        "PCIe board, so a bridge))");
  // After the last pair verdict (GPU2 <-> GPU3 and its reason), before the MMIO window.
  REQUIRE(note != lines.begin());
  CHECK((note - 1)->find("  - ") == 0);
  CHECK((note + 1)->find("64-bit MMIO window") == 0);
  CHECK(contains_text(lines, "GPU2 <-> GPU3: ") != "");

  request.gpu_count = 1;
  CHECK(contains_text(vmxkit::plan(&example_host(), request).explanation(), "NVLink bridge") == "");
  request.gpu_count = 2;
  request.vgpu = "nvidia_h100-80c";
  CHECK(contains_text(vmxkit::plan(&example_host(), request).explanation(), "NVLink bridge") == "");
}

TEST_CASE("plan picks GPUs and NICs on a host and explains why", "[api][plan]") {
  vmxkit::PlanRequest request;
  request.gpus = {"auto"};
  request.gpu_count = 2;
  request.nics = {"auto"};
  request.system_id = kSystemId;
  const vmxkit::Plan plan = vmxkit::plan(&example_host(), request);
  REQUIRE(plan.gpus().size() == 2);
  REQUIRE(plan.nics().size() == 2);
  CHECK(plan.gpus()[0].address == vmxkit::Bdf{0, 0x18, 0, 0});
  CHECK(plan.gpus()[0].model == "H100 PCIe");
  CHECK(plan.mmio().size_gb == 512);
  CHECK(plan.needs_64bit_mmio());
  CHECK(plan.p2p());
  CHECK(plan.memory_mb() == 65536);
  CHECK_FALSE(plan.base());
  const auto pair = std::find_if(plan.pairs().begin(), plan.pairs().end(),
                                 [](const vmxkit::PlannedPair& p) { return !p.peer_is_gpu; });
  REQUIRE(pair != plan.pairs().end());
  REQUIRE(pair->verdict);
  CHECK(pair->verdict->path == vmxkit::PathClass::pix);
  CHECK(contains_text(plan.explanation(), "GPU0 <-> NIC0: PIX (ok)") != "");

  // Without a host, devices are catalogue models and paths are not checked.
  vmxkit::PlanRequest models;
  models.gpus = {"h100-pcie"};
  models.nics = {"cx7"};
  const vmxkit::Plan p = vmxkit::plan(nullptr, models);
  REQUIRE(p.gpus().size() == 1);
  CHECK_FALSE(p.gpus()[0].address);
  CHECK(p.gpus()[0].device_id == 0x2331);
  CHECK_FALSE(p.pairs().at(0).verdict);
  CHECK(p.mmio().size_gb == 256);
}

TEST_CASE("plan takes memory from the base, VFs with sriov, models from the request's catalogue",
          "[api][plan]") {
  vmxkit::PlanRequest request;
  request.gpus = {"0000:18:00.0"};
  request.nics = {"auto"};
  request.base = vmxkit::load("vm.vmx", "memSize = \"131072\"\n");
  CHECK(vmxkit::plan(&example_host(), request).memory_mb() == 131072);
  request.memory_mb = 4096;
  CHECK(vmxkit::plan(&example_host(), request).memory_mb() == 4096);

  vmxkit::PlanRequest sriov;
  sriov.gpus = {"0000:18:00.0"};
  sriov.sriov = true;  // no NICs named: the closest
  const vmxkit::Plan vf = vmxkit::plan(&example_host(), sriov);
  REQUIRE(vf.nics().size() == 1);
  CHECK(vf.nics()[0].sriov_vf);

  vmxkit::test::TempDir dir;
  vmxkit::test::write_bytes(dir / "mine.tsv",
                            "10de:9999\tnew-gpu\tNew GPU\tgpu\t-\t16\t32G\t-\tyes\t-\tlab\n");
  vmxkit::PlanRequest mine;
  mine.gpus = {"new-gpu"};
  CHECK_THROWS_AS(vmxkit::plan(nullptr, mine), vmxkit::Error);  // not in the built-in one
  mine.catalog = vmxkit::load_catalog({(dir / "mine.tsv").string()});
  const vmxkit::Plan p = vmxkit::plan(nullptr, mine);
  CHECK(p.gpus().at(0).model == "New GPU");
  CHECK(p.mmio().size_gb == 32);
}

TEST_CASE("plan refuses what cannot work with vmxkit::Error", "[api][plan]") {
  vmxkit::PlanRequest request;
  request.gpus = {"0000:fe:00.0"};
  CHECK_THROWS_WITH(vmxkit::plan(&example_host(), request), Contains("no such device on the host"));
  request.gpus = {"0000:19:00.0"};  // a NIC
  CHECK_THROWS_WITH(vmxkit::plan(&example_host(), request), Contains("is not a GPU"));
  request.gpus = {"0000:18:00.0"};
  request.nics = {"0000:9e:00.0"};  // the other socket
  CHECK_THROWS_WITH(vmxkit::plan(&example_host(), request), Contains("cannot do peer-to-peer DMA"));
  request.gpus = {"auto"};
  request.nics = {};
  CHECK_THROWS_WITH(vmxkit::plan(nullptr, request), Contains("--gpu auto needs --host"));
  vmxkit::PlanRequest spec_base;
  spec_base.gpus = {"h100-pcie"};
  spec_base.base = vmxkit::load("s.xml", "<spec xmlns=\"urn:vim25\"/>");
  CHECK_THROWS_WITH(vmxkit::plan(nullptr, spec_base),
                    "s.xml: a plan merges into a .vmx only; this file is configspec-xml");
}

TEST_CASE("render writes a plan that lint accepts on the same host, in every format",
          "[api][render]") {
  vmxkit::PlanRequest request;
  request.gpus = {"auto"};
  request.gpu_count = 2;
  request.nics = {"auto"};
  request.system_id = kSystemId;
  const vmxkit::Plan plan = vmxkit::plan(&example_host(), request);
  const std::string vmx = vmxkit::render(plan, "vmx");
  CHECK(vmx.find("pciPassthru0.id = \"00000:024:00.0\"\n") != std::string::npos);
  CHECK(vmx.find("pciPassthru.64bitMMIOSizeGB = \"512\"\n") != std::string::npos);
  CHECK(vmx.find("# GPU0 <-> NIC0: PIX (ok)") != std::string::npos);
  const vmxkit::LintReport r = vmxkit::lint(vmxkit::load("vm.vmx", vmx), {.host = &example_host()});
  CHECK(r.diagnostics.empty());

  CHECK(vmxkit::render(plan, "configspec-xml").find("<id>0000:18:00.0</id>") != std::string::npos);
  CHECK(vmxkit::render(plan, "vi-json").find("\"_typeName\"") != std::string::npos);
  CHECK(vmxkit::render(plan, "govc").find("device.pci.add") != std::string::npos);
  CHECK(vmxkit::render(plan, "powercli").find("$spec.ExtraConfig = @(") != std::string::npos);
  CHECK(vmxkit::render(plan, "soap", {.template_name = {}, .vm = "vm-42"}).find(">vm-42</_this>") !=
        std::string::npos);
  CHECK_THROWS_AS(vmxkit::render(plan, "soap"), vmxkit::Error);  // no moref
  CHECK_THROWS_AS(vmxkit::render(plan, "vmx", {.template_name = "no-such-template", .vm = {}}),
                  vmxkit::Error);
}

TEST_CASE("render merges a plan into its base and keeps every other byte", "[api][render]") {
  const std::string original =
      ".encoding = \"UTF-8\"\r\n# my comment\r\ndisplayName = \"train-01\"\r\nmemSize = "
      "\"131072\"\r\n"
      "firmware = \"efi\"\r\n";
  vmxkit::PlanRequest request;
  request.gpus = {"0000:18:00.0"};
  request.nics = {"auto"};
  request.system_id = kSystemId;
  request.base = vmxkit::load("vm.vmx", original);
  const vmxkit::Plan plan = vmxkit::plan(&example_host(), request);
  REQUIRE(plan.base());
  const std::string merged = vmxkit::render(plan, "vmx");
  CHECK(merged.rfind(".encoding = \"UTF-8\"\r\n# my comment\r\ndisplayName = \"train-01\"\r\n"
                     "memSize = \"131072\"\r\n",
                     0) == 0);
  CHECK(merged.find("sched.mem.min = \"131072\"\r\n") != std::string::npos);
  CHECK(merged.find("pciPassthru0.id = \"00000:024:00.0\"\r\n") != std::string::npos);
  // The other formats carry the merged settings, the base's included.
  CHECK(vmxkit::render(plan, "configspec-xml").find("<memoryMB>131072</memoryMB>") !=
        std::string::npos);
}

TEST_CASE("render converts a loaded VM configuration to another format", "[api][render]") {
  const vmxkit::Input in = vmxkit::load_file(example_vmx_path());
  const std::string xml = vmxkit::render(in.config(), "configspec-xml");
  CHECK(xml.find("<id>0000:3b:00.0</id>") != std::string::npos);
  const vmxkit::Input back = vmxkit::load("back.xml", xml);
  CHECK(back.config().get("pciPassthru.64bitMMIOSizeGB") == "128");
  CHECK_THROWS_AS(vmxkit::render(in.config(), "soap"), vmxkit::Error);
}

TEST_CASE("output formats and templates are listed by name", "[api][render]") {
  for (const char* name :
       {"vmx", "configspec-xml", "soap", "vi-json", "govc", "powercli", "terraform", "vmclass"}) {
    const auto f = vmxkit::find_format(name);
    REQUIRE(f);
    CHECK(f->output);
    CHECK(f->name == name);
  }
  // Inputs only, and a name in another case, are no outputs.
  REQUIRE(vmxkit::find_format("ovf"));
  CHECK_FALSE(vmxkit::find_format("ovf")->output);
  CHECK_FALSE(vmxkit::find_format("VMX"));
  CHECK_THROWS_WITH(vmxkit::render(vmxkit::load("v.vmx", "a = \"1\"\n").config(), "ovf"),
                    Catch::Contains("is not an output format; the outputs are: vi-json, soap"));
  // Every format is named once, and every VM output says what it carries.
  std::set<std::string> names;
  for (const vmxkit::FormatInfo& f : vmxkit::format_table()) {
    CHECK(names.insert(f.name).second);
    CHECK_FALSE(f.summary.empty());
  }
  CHECK(vmxkit::find_format("configspec-xml")->device_groups);
  CHECK_FALSE(vmxkit::find_format("vmx")->device_groups);
  const std::vector<vmxkit::TemplateInfo> templates = vmxkit::templates();
  REQUIRE_FALSE(templates.empty());
  CHECK(std::is_sorted(templates.begin(), templates.end(),
                       [](const auto& a, const auto& b) { return a.name < b.name; }));
  for (const vmxkit::TemplateInfo& t : templates) {
    INFO(t.name);
    CHECK_FALSE(t.description.empty());
  }
}
