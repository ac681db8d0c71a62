// SPDX-License-Identifier: Apache-2.0
// A program outside the vmxkit tree using the installed library through its one public header:
// lints a VM's .vmx, plans the GPUDirect RDMA settings of two GPUs and their NICs on a host,
// renders them, lints the result against the same host and draws the host's PCIe tree as SVG;
// given a server, checks the plan against a VM there without changing it (apply_plan() with
// dry_run).
//
//     vmxkit_consumer gpu-vm.vmx host.lspci-vvv.txt SYSTEM_UUID [configspec-xml|soap|...] [SERVER]
#include <vmxkit/vmxkit.h>

#include <iostream>
#include <optional>
#include <string>

namespace {

void print(const std::string& path, const vmxkit::LintReport& report) {
  for (const vmxkit::Diagnostic& d : report.diagnostics) {
    const vmxkit::Location at = report.location(d.begin);
    std::cout << path << ':' << at.line << ':' << at.column << ": " << vmxkit::to_string(d.severity)
              << ": " << d.message << " [" << d.rule_id << "]\n";
  }
  std::cout << "# " << report.diagnostics.size() << " problem(s), "
            << report.count_at_least(vmxkit::Severity::error) << " error(s)\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 6) {
    std::cerr << "usage: vmxkit_consumer VM.vmx HOST SYSTEM_UUID [FORMAT] [SERVER]\n";
    return 2;
  }
  try {
    const std::string format = argc >= 5 ? argv[4] : "vmx";
    const std::optional<vmxkit::FormatInfo> info = vmxkit::find_format(format);
    if (!info || !info->output) throw vmxkit::Error("unknown output format " + format);
    std::cout << "# vmxkit " << vmxkit::version() << '\n';

    // The VM as it is.
    const vmxkit::Input vm = vmxkit::load_file(argv[1]);
    std::cout << "# " << vm.path << ": " << vm.format << '\n';
    for (const vmxkit::PassthroughDevice& d : vm.config().passthrough_devices()) {
      std::cout << "# pciPassthru" << d.index << ": " << vmxkit::to_string(d.kind()) << ' '
                << d.id.value_or(d.vgpu.value_or("-")) << '\n';
    }
    print(vm.path, vmxkit::lint(vm));

    // A plan on the host: the two best-connected GPUs, each with the NIC closest to it.
    const vmxkit::Host host = vmxkit::load_host({argv[2]});
    for (const std::string& w : host.warnings()) std::cerr << "warning: " << w << '\n';
    vmxkit::PlanRequest request;
    request.gpus = {"auto"};
    request.gpu_count = 2;
    request.nics = {"auto"};
    request.system_id = argv[3];
    request.host_label = argv[2];
    const vmxkit::Plan plan = vmxkit::plan(&host, request);
    for (const std::string& line : plan.explanation()) std::cout << "# plan: " << line << '\n';
    std::cout << vmxkit::render(plan, format, {.template_name = {}, .vm = "vm-1"});

    // What lint says about the planned .vmx on the same host.
    const std::string planned = vmxkit::render(plan, "vmx");
    print("planned.vmx", vmxkit::lint(vmxkit::load("planned.vmx", planned), {.host = &host}));

    // The host's PCIe tree as a diagram, laid out as SVG by Graphviz (vmxkit::graphviz).
    const std::string svg =
        vmxkit::render_svg(vmxkit::render_topology(vmxkit::topology_report(host), "dot"));
    std::cout << "# diagram: " << (svg.find("<svg") != std::string::npos ? "svg" : "none") << '\n';

    // The plan against the VM vm-1 of a server: the change and every precondition, nothing sent.
    if (argc == 6) {
      vmxkit::ApplyRequest apply;
      apply.server.url = argv[5];
      apply.vm.moid = "vm-1";
      apply.plan = vmxkit::DocumentSource::from_bytes("planned.vmx", planned);
      apply.dry_run = true;
      const vmxkit::ApplyReport report = vmxkit::apply_plan(apply);
      std::cout << "# apply: " << vmxkit::to_string(report.status) << '\n';
      for (const vmxkit::DiffLine& l : report.change.diff) {
        std::cout << "# " << l.sign << ' ' << l.what << '\n';
      }
    }
  } catch (const vmxkit::Error& e) {
    std::cerr << "vmxkit_consumer: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
