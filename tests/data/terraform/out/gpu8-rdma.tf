# host: synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt
# GPU0: 0000:18:00.0 (H100 PCIe)
# GPU1: 0000:1a:00.0 (H100 PCIe)
# GPU2: 0000:3a:00.0 (H100 PCIe)
# GPU3: 0000:3c:00.0 (H100 PCIe)
# GPU4: 0000:9d:00.0 (H100 PCIe)
# GPU5: 0000:9f:00.0 (H100 PCIe)
# GPU6: 0000:bf:00.0 (H100 PCIe)
# GPU7: 0000:c1:00.0 (H100 PCIe)
# NIC0: 0000:19:00.0 (ConnectX-7)
# NIC1: 0000:1b:00.0 (ConnectX-7)
# NIC2: 0000:3b:00.0 (ConnectX-7)
# NIC3: 0000:3d:00.0 (ConnectX-7)
# NIC4: 0000:9e:00.0 (ConnectX-7)
# NIC5: 0000:a0:00.0 (ConnectX-7)
# NIC6: 0000:c0:00.0 (ConnectX-7)
# NIC7: 0000:c2:00.0 (ConnectX-7)
# GPU0 <-> NIC0: PIX (ok)
#   - PIX: through one switch below 0000:16:00.0; GPUDirect RDMA stays below the host bridge
# GPU1 <-> NIC1: PIX (ok)
#   - PIX: through one switch below 0000:16:00.0; GPUDirect RDMA stays below the host bridge
# GPU2 <-> NIC2: PIX (ok)
#   - PIX: through one switch below 0000:38:00.0; GPUDirect RDMA stays below the host bridge
# GPU3 <-> NIC3: PIX (ok)
#   - PIX: through one switch below 0000:38:00.0; GPUDirect RDMA stays below the host bridge
# GPU4 <-> NIC4: PIX (ok)
#   - PIX: through one switch below 0000:9b:00.0; GPUDirect RDMA stays below the host bridge
# GPU5 <-> NIC5: PIX (ok)
#   - PIX: through one switch below 0000:9b:00.0; GPUDirect RDMA stays below the host bridge
# GPU6 <-> NIC6: PIX (ok)
#   - PIX: through one switch below 0000:bd:00.0; GPUDirect RDMA stays below the host bridge
# GPU7 <-> NIC7: PIX (ok)
#   - PIX: through one switch below 0000:bd:00.0; GPUDirect RDMA stays below the host bridge
# GPU0 <-> GPU1: PIX (ok)
#   - PIX: through one switch below 0000:16:00.0; GPU P2P stays below the host bridge
# GPU0 <-> GPU2: NODE (degraded)
#   - NODE: host bridges 0000:15 and 0000:37, both on NUMA node 0; GPU P2P goes through the CPU (works, P2P reads are slow; NCCL's default level PXB will not use it)
#     fix: place both devices under one PCIe switch
# GPU0 <-> GPU3: NODE (degraded)
#   - NODE: host bridges 0000:15 and 0000:37, both on NUMA node 0; GPU P2P goes through the CPU (works, P2P reads are slow; NCCL's default level PXB will not use it)
#     fix: place both devices under one PCIe switch
# GPU0 <-> GPU4: SYS (unsupported)
#   - SYS: host bridges 0000:15 (NUMA node 0) and 0000:9a (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU0 <-> GPU5: SYS (unsupported)
#   - SYS: host bridges 0000:15 (NUMA node 0) and 0000:9a (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU0 <-> GPU6: SYS (unsupported)
#   - SYS: host bridges 0000:15 (NUMA node 0) and 0000:bc (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU0 <-> GPU7: SYS (unsupported)
#   - SYS: host bridges 0000:15 (NUMA node 0) and 0000:bc (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU1 <-> GPU2: NODE (degraded)
#   - NODE: host bridges 0000:15 and 0000:37, both on NUMA node 0; GPU P2P goes through the CPU (works, P2P reads are slow; NCCL's default level PXB will not use it)
#     fix: place both devices under one PCIe switch
# GPU1 <-> GPU3: NODE (degraded)
#   - NODE: host bridges 0000:15 and 0000:37, both on NUMA node 0; GPU P2P goes through the CPU (works, P2P reads are slow; NCCL's default level PXB will not use it)
#     fix: place both devices under one PCIe switch
# GPU1 <-> GPU4: SYS (unsupported)
#   - SYS: host bridges 0000:15 (NUMA node 0) and 0000:9a (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU1 <-> GPU5: SYS (unsupported)
#   - SYS: host bridges 0000:15 (NUMA node 0) and 0000:9a (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU1 <-> GPU6: SYS (unsupported)
#   - SYS: host bridges 0000:15 (NUMA node 0) and 0000:bc (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU1 <-> GPU7: SYS (unsupported)
#   - SYS: host bridges 0000:15 (NUMA node 0) and 0000:bc (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU2 <-> GPU3: PIX (ok)
#   - PIX: through one switch below 0000:38:00.0; GPU P2P stays below the host bridge
# GPU2 <-> GPU4: SYS (unsupported)
#   - SYS: host bridges 0000:37 (NUMA node 0) and 0000:9a (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU2 <-> GPU5: SYS (unsupported)
#   - SYS: host bridges 0000:37 (NUMA node 0) and 0000:9a (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU2 <-> GPU6: SYS (unsupported)
#   - SYS: host bridges 0000:37 (NUMA node 0) and 0000:bc (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU2 <-> GPU7: SYS (unsupported)
#   - SYS: host bridges 0000:37 (NUMA node 0) and 0000:bc (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU3 <-> GPU4: SYS (unsupported)
#   - SYS: host bridges 0000:37 (NUMA node 0) and 0000:9a (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU3 <-> GPU5: SYS (unsupported)
#   - SYS: host bridges 0000:37 (NUMA node 0) and 0000:9a (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU3 <-> GPU6: SYS (unsupported)
#   - SYS: host bridges 0000:37 (NUMA node 0) and 0000:bc (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU3 <-> GPU7: SYS (unsupported)
#   - SYS: host bridges 0000:37 (NUMA node 0) and 0000:bc (NUMA node 1); GPU P2P across the SMP interconnect is not supported
#     fix: use devices on one NUMA node, best under one PCIe switch
# GPU4 <-> GPU5: PIX (ok)
#   - PIX: through one switch below 0000:9b:00.0; GPU P2P stays below the host bridge
# GPU4 <-> GPU6: NODE (degraded)
#   - NODE: host bridges 0000:9a and 0000:bc, both on NUMA node 1; GPU P2P goes through the CPU (works, P2P reads are slow; NCCL's default level PXB will not use it)
#     fix: place both devices under one PCIe switch
# GPU4 <-> GPU7: NODE (degraded)
#   - NODE: host bridges 0000:9a and 0000:bc, both on NUMA node 1; GPU P2P goes through the CPU (works, P2P reads are slow; NCCL's default level PXB will not use it)
#     fix: place both devices under one PCIe switch
# GPU5 <-> GPU6: NODE (degraded)
#   - NODE: host bridges 0000:9a and 0000:bc, both on NUMA node 1; GPU P2P goes through the CPU (works, P2P reads are slow; NCCL's default level PXB will not use it)
#     fix: place both devices under one PCIe switch
# GPU5 <-> GPU7: NODE (degraded)
#   - NODE: host bridges 0000:9a and 0000:bc, both on NUMA node 1; GPU P2P goes through the CPU (works, P2P reads are slow; NCCL's default level PXB will not use it)
#     fix: place both devices under one PCIe switch
# GPU6 <-> GPU7: PIX (ok)
#   - PIX: through one switch below 0000:bd:00.0; GPU P2P stays below the host bridge
# note: GPUs 0000:18:00.0, 0000:1a:00.0, 0000:3a:00.0, 0000:3c:00.0, 0000:9d:00.0, 0000:9f:00.0, 0000:bf:00.0, 0000:c1:00.0 (H100 PCIe) take an NVLink bridge, which the PCI inputs cannot show (a bridge is not a PCI device): the GPU<->GPU verdicts here are PCIe-only; give `nvidia-smi topo -m` with --host to include NVLink (catalogue 10de:2331; NVLink: NVAIE6 P2P table lists H100-80C (H100 PCIe 80GB: a PCIe board, so a bridge))
# 64-bit MMIO window: 2048 GB
#     128G at +0        BAR1  0000:18:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:95]
#     128G at +128G     BAR1  0000:1a:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:132]
#     128G at +256G     BAR1  0000:3a:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:257]
#     128G at +384G     BAR1  0000:3c:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:294]
#     128G at +512G     BAR1  0000:9d:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:419]
#     128G at +640G     BAR1  0000:9f:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:456]
#     128G at +768G     BAR1  0000:bf:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:581]
#     128G at +896G     BAR1  0000:c1:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:618]
#      32M at +1T       BAR3  0000:18:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:96]
#      32M at +1048608M BAR3  0000:1a:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:133]
#      32M at +1048640M BAR3  0000:3a:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:258]
#      32M at +1048672M BAR3  0000:3c:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:295]
#      32M at +1048704M BAR3  0000:9d:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:420]
#      32M at +1048736M BAR3  0000:9f:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:457]
#      32M at +1048768M BAR3  0000:bf:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:582]
#      32M at +1048800M BAR3  0000:c1:00.0 (H100 PCIe)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:619]
#      32M at +1048832M BAR0  0000:19:00.0 (ConnectX-7)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:107]
#      32M at +1048864M BAR0  0000:1b:00.0 (ConnectX-7)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:144]
#      32M at +1048896M BAR0  0000:3b:00.0 (ConnectX-7)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:269]
#      32M at +1048928M BAR0  0000:3d:00.0 (ConnectX-7)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:306]
#      32M at +1048960M BAR0  0000:9e:00.0 (ConnectX-7)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:431]
#      32M at +1048992M BAR0  0000:a0:00.0 (ConnectX-7)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:468]
#      32M at +1049024M BAR0  0000:c0:00.0 (ConnectX-7)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:593]
#      32M at +1049056M BAR0  0000:c2:00.0 (ConnectX-7)  [lspci examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:630]
#   total 1024.50 GiB (1100048498688 bytes), packed with natural alignment
#   BARs: 64bitMMIOSizeGB = 2048 (the power of two >= 1025 GiB)
#   KB 323402: 2 x 640 GB total framebuffer = 1280 -> 2048
#   => pciPassthru.64bitMMIOSizeGB = 2048
#   below 4 GiB, not counted: 0000:18:00.0 (H100 PCIe) BAR0 16M (32-bit)
#   below 4 GiB, not counted: 0000:1a:00.0 (H100 PCIe) BAR0 16M (32-bit)
#   below 4 GiB, not counted: 0000:3a:00.0 (H100 PCIe) BAR0 16M (32-bit)
#   below 4 GiB, not counted: 0000:3c:00.0 (H100 PCIe) BAR0 16M (32-bit)
#   below 4 GiB, not counted: 0000:9d:00.0 (H100 PCIe) BAR0 16M (32-bit)
#   below 4 GiB, not counted: 0000:9f:00.0 (H100 PCIe) BAR0 16M (32-bit)
#   below 4 GiB, not counted: 0000:bf:00.0 (H100 PCIe) BAR0 16M (32-bit)
#   below 4 GiB, not counted: 0000:c1:00.0 (H100 PCIe) BAR0 16M (32-bit)
# memory: 1048576 MB, all reserved (passthrough DMA needs it)
# DirectPath I/O: this VM cannot be suspended, migrated with vMotion, or snapshotted while it holds the devices (vSphere VM administration, PCI devices)
# systemId: not given (--system-id); fill in the host's system UUID: `esxcli system uuid get` on the host, or the device's systemId in QueryConfigTarget().pciPassthrough
# vmxkit: the arguments to merge into your vsphere_virtual_machine resource (vmware/terraform-provider-vsphere 2.7.0 or later; extra_config takes effect at the next power cycle)
resource "vsphere_virtual_machine" "gpu_vm" {
  host_system_id                   = "<fill in: the id of the host that holds the devices, data.vsphere_host.NAME.id>"
  memory                           = 1048576
  memory_reservation               = 1048576
  memory_reservation_locked_to_max = true
  firmware                         = "efi"
  pci_device_id                    = ["0000:18:00.0", "0000:1a:00.0", "0000:3a:00.0", "0000:3c:00.0", "0000:9d:00.0", "0000:9f:00.0", "0000:bf:00.0", "0000:c1:00.0", "0000:19:00.0", "0000:1b:00.0", "0000:3b:00.0", "0000:3d:00.0", "0000:9e:00.0", "0000:a0:00.0", "0000:c0:00.0", "0000:c2:00.0"]
  extra_config = {
    "pciPassthru.allowP2P"        = "TRUE"
    "pciPassthru.RelaxACSforP2P"  = "TRUE"
    "pciPassthru.use64bitMMIO"    = "TRUE"
    "pciPassthru.64bitMMIOSizeGB" = "2048"
  }
}
