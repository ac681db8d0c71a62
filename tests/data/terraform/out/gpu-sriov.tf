# host: synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt
# GPU0: 0000:3a:00.0 (H100 PCIe)
# NIC0: 0000:3b:00.0 (ConnectX-7) (an SR-IOV VF of it)
# GPU0 <-> NIC0: PIX (ok)
#   - PIX: through one switch below 0000:38:00.0; GPUDirect RDMA stays below the host bridge
# 64-bit MMIO window: 256 GB
#     128G at +0        BAR1  0000:3a:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:257]
#      32M at +128G     BAR3  0000:3a:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:258]
#   total 128.03 GiB (137472507904 bytes), packed with natural alignment
#   BARs: 64bitMMIOSizeGB = 256 (the power of two >= 129 GiB)
#   KB 323402: 2 x 80 GB total framebuffer = 160 -> 256
#   => pciPassthru.64bitMMIOSizeGB = 256
#   below 4 GiB, not counted: 0000:3a:00.0 (H100 PCIe) BAR0 16M (32-bit)
# memory: 262144 MB, all reserved (passthrough DMA needs it)
# DirectPath I/O: this VM cannot be suspended, migrated with vMotion, or snapshotted while it holds the devices (vSphere VM administration, PCI devices)
# systemId: not given (--system-id); fill in the host's system UUID: `esxcli system uuid get` on the host, or the device's systemId in QueryConfigTarget().pciPassthrough
# vmxkit: the arguments to merge into your vsphere_virtual_machine resource (vmware/terraform-provider-vsphere 2.7.0 or later; extra_config takes effect at the next power cycle)
resource "vsphere_virtual_machine" "gpu_vm" {
  host_system_id                   = "<fill in: the id of the host that holds the devices, data.vsphere_host.NAME.id>"
  memory                           = 262144
  memory_reservation               = 262144
  memory_reservation_locked_to_max = true
  firmware                         = "efi"
  pci_device_id                    = ["0000:3a:00.0"]
  extra_config = {
    "pciPassthru.allowP2P"        = "TRUE"
    "pciPassthru.RelaxACSforP2P"  = "TRUE"
    "pciPassthru.use64bitMMIO"    = "TRUE"
    "pciPassthru.64bitMMIOSizeGB" = "256"
  }
  network_interface {
    # SR-IOV VF 0: after the resource's other network_interface blocks, as the provider requires
    adapter_type      = "sriov"
    physical_function = "0000:3b:00.0"
    network_id        = "<fill in: the id of the port group \"VM Network\", data.vsphere_network.NAME.id>"
  }
}
