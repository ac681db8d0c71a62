# SPDX-License-Identifier: Apache-2.0
"""Terraform and VM class forms from Python, through the format table: a plan written as
either, and lint on a Terraform plan and a VM class file, each VM judged at its own place."""

import os
import unittest

import support
import vmxkit

TERRAFORM = os.path.join(support.SOURCE_DIR, "tests", "data", "terraform")
VMCLASS = os.path.join(support.SOURCE_DIR, "tests", "data", "vmclass")


def problems(findings, vm):
    """(rule, line) of the findings about `vm` at warning or above."""
    return [(f.rule, f.line) for f in findings
            if f.at_least("warning") and f.message.startswith(vm + ": ")]


class DeclaredTest(unittest.TestCase):
    def test_the_format_table_names_the_declaration_forms(self):
        outputs = vmxkit.output_formats()
        self.assertIn("terraform", outputs)
        self.assertIn("vmclass", outputs)
        inputs = [f["name"] for f in vmxkit.formats() if f["input"]]
        self.assertIn("terraform-json", inputs)
        self.assertIn("vmclass", inputs)

    def test_a_plan_as_terraform_and_as_a_vm_class(self):
        host = vmxkit.Host(support.HOST_2S)
        plan = vmxkit.generate(host, gpus=1, nic="auto", system_id=support.SYSTEM_ID)
        hcl = plan.terraform()
        self.assertIn('resource "vsphere_virtual_machine" "gpu_vm" {', hcl)
        self.assertIn('"pciPassthru.64bitMMIOSizeGB"', hcl)
        self.assertEqual(plan.render("terraform"), hcl.encode())
        yaml = plan.vmclass()
        self.assertIn("kind: VirtualMachineClass", yaml)
        self.assertIn("configSpec:", yaml)
        # The class reads back and lints as a class: its devices by vendor and device id.
        findings = vmxkit.lint(yaml.encode())
        self.assertEqual(findings.format, "vmclass")
        self.assertEqual([str(f) for f in findings if f.at_least("warning")], [])

    def test_lint_on_a_terraform_plan_judges_each_vm_at_its_resource(self):
        findings = vmxkit.lint(os.path.join(TERRAFORM, "plan-two-gpu-vms.json"),
                               host=vmxkit.Host(support.HOST_2S))
        self.assertEqual(findings.format, "terraform-json")
        self.assertEqual(
            problems(findings, "module.trainer.vsphere_virtual_machine.gpu_nommio[0]"),
            [("MMIO005", 374), ("PT008", 387), ("MMIO001", 411)])
        self.assertEqual(problems(findings, "vsphere_virtual_machine.gpu_full"), [])

    def test_lint_on_a_vm_class_file_judges_each_class_at_its_line(self):
        findings = vmxkit.lint(os.path.join(VMCLASS, "two-classes.yaml"))
        self.assertEqual(findings.format, "vmclass")
        self.assertEqual(problems(findings, "ai-team/h100-80c-small-mmio"), [("MMIO004", 71)])
        self.assertEqual(problems(findings, "ai-team/h100-80c"), [])


if __name__ == "__main__":
    unittest.main()
