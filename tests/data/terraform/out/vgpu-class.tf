# host: synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt
# GPU0: 0000:3a:00.0 (H100 PCIe) as vGPU grid_h100-80c
# vGPU placement: ESXi picks the physical GPU of each vGPU at power-on, by its placement policy; the paths below hold only if it picks the GPUs named here, which a vendor device group of the GPU and NIC (vSphere 8.0 U1, added in vCenter) makes sure of (rule P2P005)
# 64-bit MMIO window: 256 GB
#     128G at +0        BAR1  vGPU grid_h100-80c on 0000:3a:00.0  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:257]
#      32M at +128G     BAR3  vGPU grid_h100-80c on 0000:3a:00.0  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:258]
#   total 128.03 GiB (137472507904 bytes), packed with natural alignment
#   BARs: 64bitMMIOSizeGB = 256 (the power of two >= 129 GiB)
#   KB 323402: 2 x 80 GB total framebuffer = 160 -> 256
#   => pciPassthru.64bitMMIOSizeGB = 256
#   below 4 GiB, not counted: vGPU grid_h100-80c on 0000:3a:00.0 BAR0 16M (32-bit)
#   vGPU grid_h100-80c in a VM with 131072 MB of memory (>= 32 GB): sized as its physical GPU (NVIDIA AI Enterprise, VMware appendix)
# memory: 131072 MB, all reserved (passthrough DMA needs it)
# systemId: not given (--system-id); fill in the host's system UUID: `esxcli system uuid get` on the host, or the device's systemId in QueryConfigTarget().pciPassthrough
# vmxkit: pciPassthru.allowP2P and pciPassthru.RelaxACSforP2P not written: a class carries no extraConfig, and vGPUs get no peer-to-peer over PCIe
# vmxkit: the provider's vsphere_virtual_machine has no vGPU argument (pull request #2113 closed unmerged): this is a VM Service class (vsphere_virtual_machine_class, provider 2.8.0) for vSphere with Kubernetes; memory_reservation is a percentage
# vmxkit: cpus is required: add the vCPU count
# vmxkit: firmware = "efi" is not carried by a class: VM Operator takes the VM's firmware from its spec.bootOptions, else from its image
# vmxkit: VM Operator adds pciPassthru.use64bitMMIO = TRUE and pciPassthru.64bitMMIOSizeGB = 512 to a VM of a class with PCI devices
resource "vsphere_virtual_machine_class" "gpu_vm" {
  name               = "vmxkit-gpu"
  memory             = 131072
  memory_reservation = 100
  vgpu_devices       = ["grid_h100-80c"]
}
