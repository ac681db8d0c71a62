// SPDX-License-Identifier: Apache-2.0
// The public API's apply through its one header (vmxkit::client): the report as `vmxkit apply
// --format json` writes it, and what apply_plan() refuses or does first, without a server.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/vmxkit.h"

using Catch::Contains;

namespace {

// A report as a dry run ends: the change and the checks, nothing sent.
vmxkit::ApplyReport dry_run_report() {
  vmxkit::ApplyReport r;
  r.status = vmxkit::ApplyStatus::dry_run;
  r.plan = "generated for host DC0_H0 (vSphere API)";
  r.vm = {"gpu-vm", "vm-42", "poweredOff"};
  r.change.diff = {{'-', "passthrough 0000:18:00.0"}, {'=', "memoryMB 4096: kept"}};
  r.change.placeholders = {"systemId: <fill in: the host's system UUID>"};
  r.checks = {{"VM 'gpu-vm' is powered off"}, {}, {"the host's ConfigTarget: not read"}};
  return r;
}

}  // namespace

TEST_CASE("render_apply_json writes the report as vmxkit apply --format json", "[api][apply]") {
  const std::string text = vmxkit::render_apply_json(dry_run_report());
  CHECK(text ==
        "{\n"
        "  \"schema\": 1,\n"
        "  \"status\": \"dry-run\",\n"
        "  \"changed\": false,\n"
        "  \"vm\": {\n"
        "    \"name\": \"gpu-vm\",\n"
        "    \"moref\": \"vm-42\",\n"
        "    \"power_state\": \"poweredOff\"\n"
        "  },\n"
        "  \"plan\": \"generated for host DC0_H0 (vSphere API)\",\n"
        "  \"changes\": [\n"
        "    {\n"
        "      \"sign\": \"-\",\n"
        "      \"what\": \"passthrough 0000:18:00.0\"\n"
        "    },\n"
        "    {\n"
        "      \"sign\": \"=\",\n"
        "      \"what\": \"memoryMB 4096: kept\"\n"
        "    }\n"
        "  ],\n"
        "  \"placeholders\": [\n"
        "    \"systemId: <fill in: the host's system UUID>\"\n"
        "  ],\n"
        "  \"checks\": {\n"
        "    \"passed\": [\n"
        "      \"VM 'gpu-vm' is powered off\"\n"
        "    ],\n"
        "    \"failed\": [],\n"
        "    \"not_checked\": [\n"
        "      \"the host's ConfigTarget: not read\"\n"
        "    ]\n"
        "  },\n"
        "  \"task\": null,\n"
        "  \"left\": [],\n"
        "  \"lint\": null\n"
        "}\n");
}

TEST_CASE("render_apply_json gives the task and the read-back's lint as lint --format json",
          "[api][apply]") {
  vmxkit::ApplyReport r = dry_run_report();
  r.status = vmxkit::ApplyStatus::applied;
  r.changed = true;
  r.task = vmxkit::ApplyTask{"task-17", true, "", ""};
  r.after = vmxkit::AppliedVmState{1, 4096};
  r.lint = vmxkit::lint(vmxkit::load("vc/vm/gpu-vm", "pciPassthru0.present = \"TRUE\"\n"));
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(vmxkit::render_apply_json(r));
  CHECK(doc["status"] == "applied");
  CHECK(doc["changed"] == true);
  CHECK(doc["task"] == nlohmann::ordered_json::parse(
                           R"({"moref": "task-17", "success": true, "fault": "", "message": ""})"));
  std::string lint;
  vmxkit::LintReportWriter writer("json", [&lint](std::string_view piece) { lint += piece; });
  writer.add(*r.lint);
  writer.finish();
  CHECK(doc["lint"] == nlohmann::ordered_json::parse(lint));
  CHECK(doc["lint"]["files"][0]["path"] == "vc/vm/gpu-vm");
  // What the VM holds after the task is for the failure message, not the document.
  CHECK(!doc.contains("after"));

  r.status = vmxkit::ApplyStatus::task_failed;
  r.changed = false;
  r.task = vmxkit::ApplyTask{"task-18", false, "InvalidDeviceSpec", "bad device"};
  r.lint.reset();
  const nlohmann::ordered_json failed = nlohmann::ordered_json::parse(vmxkit::render_apply_json(r));
  CHECK(failed["status"] == "task-failed");
  CHECK(failed["task"]["fault"] == "InvalidDeviceSpec");
  CHECK(failed["lint"].is_null());
}

TEST_CASE("apply_plan refuses a plan given with generate's options before it connects",
          "[api][apply]") {
  vmxkit::ApplyRequest request;
  request.server.url = "https://127.0.0.1:9/sdk";
  request.server.timeout = std::chrono::milliseconds(2000);
  bool connected = false;
  request.server.on_connected = [&connected](const vmxkit::ServerInfo&) { connected = true; };
  request.vm.name = "gpu-vm";
  request.plan = "plan.vmx";
  request.generate = vmxkit::PlanRequest{};
  CHECK_THROWS_WITH(vmxkit::apply_plan(request), Contains("not both"));
  request.plan = vmxkit::DocumentSource::from_bytes("<stdin>", "memsize = \"4096\"\n");
  CHECK_THROWS_WITH(vmxkit::apply_plan(request), Contains("not both"));
  CHECK(!connected);
}

TEST_CASE("apply_plan connects before it reads the plan, as vmxkit apply does", "[api][apply]") {
  // A plan that cannot be read, and no server: the server is what is said (with --verbose the
  // connection is shown before the plan's error).
  vmxkit::ApplyRequest request;
  request.server.url = "https://127.0.0.1:9/sdk";
  request.server.timeout = std::chrono::milliseconds(2000);
  std::vector<std::string> requests;
  request.server.on_request = [&requests](std::string_view method) {
    requests.emplace_back(method);
  };
  request.vm.name = "gpu-vm";
  request.plan = "/nonexistent/plan.vmx";
  CHECK_THROWS_WITH(vmxkit::apply_plan(request), Contains("127.0.0.1:9"));
  CHECK(!requests.empty());
}
