# A dotted extra_config key without quotes: HCL reads it as a reference (traversal), and
# Terraform fails with "Ambiguous attribute key". hclcheck must refuse it.
resource "vsphere_virtual_machine" "a" {
  extra_config = {
    pciPassthru.use64bitMMIO = "TRUE"
  }
}
