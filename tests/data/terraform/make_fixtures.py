#!/usr/bin/env python3
"""Writes the hand-written `terraform show -json` fixtures in this folder (see README.md).

Run it from anywhere: python3 tests/data/terraform/make_fixtures.py

Nothing here came from a real Terraform run: the shapes follow Terraform's
internal/command/jsonplan/plan.go and jsonstate/state.go (hashicorp/terraform
@883c7221, plan format "1.2" since v1.5.0, state format "1.0" since v1.1.0) and
its testdata/show-json/*/output.json; the attribute names follow
vmware/terraform-provider-vsphere@b45b5b41 (vsphere_virtual_machine schema
version 3, vsphere_virtual_machine_class). Attribute sets are abridged: a real
plan lists every schema attribute (null when unset).

The device addresses are those of examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt:
H100s at 0000:3a:00.0 and 0000:9d:00.0, ConnectX-7s at 0000:3b:00.0 and 0000:3d:00.0.
"""
# SPDX-License-Identifier: Apache-2.0
import copy, json, os

HERE = os.path.dirname(os.path.abspath(__file__))
PROVIDER = "registry.terraform.io/vmware/vsphere"
TF = "1.9.8"


def nic(network_id, adapter_type="vmxnet3", pf="", key=4000, addr="pci:0:7", mac="00:50:56:8a:10:01"):
    return {
        "adapter_type": adapter_type, "bandwidth_limit": -1, "bandwidth_reservation": 0,
        "bandwidth_share_count": 50, "bandwidth_share_level": "normal", "device_address": addr,
        "external_port_id": "", "key": key, "mac_address": mac, "network_id": network_id,
        "ovf_mapping": "", "physical_function": pf, "use_static_mac": False,
    }


def disk(label="disk0", size=200):
    return {
        "attach": False, "controller_type": "scsi", "datastore_id": "datastore-41", "device_address": "scsi:0:0",
        "disk_mode": "persistent", "disk_sharing": "sharingNone", "eagerly_scrub": False, "io_limit": -1,
        "io_reservation": 0, "io_share_count": 1000, "io_share_level": "normal", "keep_on_remove": False,
        "key": 2000, "label": label, "path": "", "size": size, "storage_policy_id": None,
        "thin_provisioned": True, "unit_number": 0, "uuid": "6000C29a-8f1e-4c2b-9d3e-3a1b2c3d4e5f",
        "write_through": False,
    }


def vm(name, host, pci, extra, mem, resv, locked, firmware, nics, hw=21, cpus=32, cps=16):
    return {
        "alternate_guest_name": "", "annotation": "", "boot_delay": 0, "boot_retry_delay": 10000,
        "boot_retry_enabled": False, "cdrom": [], "change_version": "2026-03-02T10:11:12.345678Z",
        "clone": [], "cpu_hot_add_enabled": False, "cpu_hot_remove_enabled": False, "cpu_limit": -1,
        "cpu_performance_counters_enabled": False, "cpu_reservation": 0, "cpu_share_count": cpus * 1000,
        "cpu_share_level": "normal", "custom_attributes": None, "datacenter_id": None,
        "datastore_cluster_id": None, "datastore_id": "datastore-41", "default_ip_address": "10.20.0.15",
        "disk": [disk()], "efi_secure_boot_enabled": False, "enable_disk_uuid": False,
        "enable_logging": False, "ept_rvi_mode": "automatic", "extra_config": extra,
        "extra_config_reboot_required": True, "firmware": firmware, "folder": "ai", "force_power_off": True,
        "guest_id": "ubuntu64Guest", "guest_ip_addresses": ["10.20.0.15"], "hardware_version": hw,
        "host_system_id": host, "hv_mode": "hvAuto", "id": "42293a7e-51c2-6f1b-2b0e-9f3c1d2e4a5b",
        "ide_controller_count": 2, "ignored_guest_ips": None, "imported": None, "latency_sensitivity": "normal",
        "memory": mem, "memory_hot_add_enabled": False, "memory_limit": -1, "memory_reservation": resv,
        "memory_reservation_locked_to_max": locked, "memory_share_count": mem * 10, "memory_share_level": "normal",
        "migrate_wait_timeout": 30, "moid": "vm-3107", "name": name, "nested_hv_enabled": False,
        "network_interface": nics, "num_cores_per_socket": cps, "num_cpus": cpus, "ovf_deploy": [],
        "pci_device_id": pci, "poweron_timeout": 300, "power_state": "on", "reboot_required": False,
        "replace_trigger": None, "resource_pool_id": "resgroup-8", "run_tools_scripts_after_power_on": True,
        "run_tools_scripts_after_resume": True, "run_tools_scripts_before_guest_reboot": False,
        "run_tools_scripts_before_guest_shutdown": True, "run_tools_scripts_before_guest_standby": True,
        "sata_controller_count": 0, "scsi_bus_sharing": "noSharing", "scsi_controller_count": 1,
        "scsi_type": "pvscsi", "shutdown_wait_timeout": 3, "storage_policy_id": None,
        "swap_placement_policy": "inherit", "sync_time_with_host": True,
        "sync_time_with_host_periodically": False, "tags": None, "tools_upgrade_policy": "manual",
        "uuid": "42293a7e-51c2-6f1b-2b0e-9f3c1d2e4a5b", "vapp": [], "vapp_transport": [],
        "vbs_enabled": False, "video_card": [], "vmware_tools_status": "guestToolsRunning",
        "vmx_path": "[nvme-ds01] %s/%s.vmx" % (name, name), "vtpm": [], "vvtd_enabled": False,
        "wait_for_guest_ip_timeout": 0, "wait_for_guest_net_routable": True, "wait_for_guest_net_timeout": 5,
    }


COMPUTED = ["change_version", "default_ip_address", "guest_ip_addresses", "id", "imported", "moid",
            "power_state", "reboot_required", "uuid", "vapp_transport", "vmware_tools_status", "vmx_path"]


def planned(v):
    """After-values of a create: computed attributes omitted (unknown), device keys unknown."""
    a = copy.deepcopy(v)
    for k in COMPUTED:
        a.pop(k, None)
    a["cpu_share_count"] = None
    a.pop("cpu_share_count")
    a.pop("memory_share_count")
    for n in a["network_interface"]:
        for k in ("device_address", "key", "mac_address"):
            n.pop(k)
    for d in a["disk"]:
        for k in ("device_address", "key", "uuid", "path", "storage_policy_id"):
            d.pop(k)
    a["vmx_path"] = None
    a.pop("vmx_path")
    return a


def unknown_of(a):
    u = {k: True for k in COMPUTED}
    u.update({"cpu_share_count": True, "memory_share_count": True})
    u["network_interface"] = [{"device_address": True, "key": True, "mac_address": True} for _ in a["network_interface"]]
    u["disk"] = [{"device_address": True, "key": True, "uuid": True, "path": True, "storage_policy_id": True}]
    u.update({"cdrom": [], "clone": [], "extra_config": {}, "ovf_deploy": [], "pci_device_id": [False] * len(a["pci_device_id"]),
              "vapp": [], "video_card": [], "vtpm": []})
    return u


def sensitive_of(a):
    s = {"cdrom": [], "clone": [], "disk": [{}], "extra_config": {}, "network_interface": [{} for _ in a["network_interface"]],
         "ovf_deploy": [], "pci_device_id": [], "vapp": [], "video_card": [], "vtpm": []}
    return s


def state_resource(address, rtype, name, values, index=None, mode="managed", schema_version=3, sensitive=None):
    r = {"address": address, "mode": mode, "type": rtype, "name": name}
    if index is not None:
        r["index"] = index
    r.update({"provider_name": PROVIDER, "schema_version": schema_version, "values": values,
              "sensitive_values": sensitive if sensitive is not None else {}})
    return r


# ---- VM 1: GPU + ConnectX by DirectPath, SR-IOV VF NIC, all MMIO keys --------------------------
full_extra = {
    "pciPassthru.use64bitMMIO": "TRUE",
    "pciPassthru.64bitMMIOSizeGB": "256",
    "pciPassthru.allowP2P": "TRUE",
    "pciPassthru.RelaxACSforP2P": "TRUE",
}
vm_full = vm("gpu-full-01", "host-1021", ["0000:3a:00.0", "0000:3b:00.0"], full_extra, 262144, 262144, True, "efi",
             [nic("dvportgroup-77", key=4000, addr="pci:0:7"),
              nic("dvportgroup-78", adapter_type="sriov", pf="0000:3d:00.0", key=4001, addr="pci:0:8",
                  mac="00:50:56:8a:10:02")])
# ---- VM 2: one GPU, no 64-bit MMIO keys, BIOS, no reservation --------------------------------
vm_nommio = vm("gpu-nommio-00", "host-1022", ["0000:9d:00.0"], {"pciPassthru.allowP2P": "TRUE"}, 131072, 0, False,
               "bios", [nic("dvportgroup-77")], cpus=16, cps=8)

host_pci_gpu = {"class_id": "302", "host_id": "host-1021", "id": "0000:3a:00.0", "name": "GH100 [H100 PCIe]",
                "name_regex": "H100", "vendor_id": "10de"}
host_data = {"datacenter_id": "datacenter-3", "id": "host-1021", "name": "esx-gpu-01.example.com",
             "resource_pool_id": "resgroup-8"}

a_full, a_nommio = planned(vm_full), planned(vm_nommio)
a_full["host_system_id"] = "host-1021"

plan = {
    "format_version": "1.2",
    "terraform_version": TF,
    "variables": {"memory_mb": {"value": 262144}},
    "planned_values": {
        "root_module": {
            "resources": [
                state_resource("vsphere_virtual_machine.gpu_full", "vsphere_virtual_machine", "gpu_full", a_full,
                               sensitive=sensitive_of(a_full)),
            ],
            "child_modules": [{
                "resources": [
                    state_resource("module.trainer.vsphere_virtual_machine.gpu_nommio[0]", "vsphere_virtual_machine",
                                   "gpu_nommio", a_nommio, index=0, sensitive=sensitive_of(a_nommio)),
                ],
                "address": "module.trainer",
            }],
        }
    },
    "resource_changes": [
        {"address": "module.trainer.vsphere_virtual_machine.gpu_nommio[0]", "module_address": "module.trainer",
         "mode": "managed", "type": "vsphere_virtual_machine", "name": "gpu_nommio", "index": 0,
         "provider_name": PROVIDER,
         "change": {"actions": ["create"], "before": None, "after": a_nommio, "after_unknown": unknown_of(a_nommio),
                    "before_sensitive": False, "after_sensitive": sensitive_of(a_nommio)}},
        {"address": "vsphere_virtual_machine.gpu_full", "mode": "managed", "type": "vsphere_virtual_machine",
         "name": "gpu_full", "provider_name": PROVIDER,
         "change": {"actions": ["create"], "before": None, "after": a_full, "after_unknown": unknown_of(a_full),
                    "before_sensitive": False, "after_sensitive": sensitive_of(a_full)}},
    ],
    "prior_state": {
        "format_version": "1.0",
        "terraform_version": TF,
        "values": {"root_module": {"resources": [
            state_resource("data.vsphere_host.gpu01", "vsphere_host", "gpu01", host_data, mode="data", schema_version=0),
            state_resource("data.vsphere_host_pci_device.h100", "vsphere_host_pci_device", "h100", host_pci_gpu,
                           mode="data", schema_version=0),
        ]}},
    },
    "configuration": {
        "provider_config": {"vsphere": {"name": "vsphere", "full_name": PROVIDER, "version_constraint": "~> 2.16",
                                        "expressions": {"vsphere_server": {"constant_value": "vc01.example.com"},
                                                        "user": {"references": ["var.vsphere_user"]}}}},
        "root_module": {
            "resources": [
                {"address": "vsphere_virtual_machine.gpu_full", "mode": "managed", "type": "vsphere_virtual_machine",
                 "name": "gpu_full", "provider_config_key": "vsphere", "schema_version": 3,
                 "expressions": {
                     "name": {"constant_value": "gpu-full-01"},
                     "host_system_id": {"references": ["data.vsphere_host.gpu01.id", "data.vsphere_host.gpu01"]},
                     "memory": {"references": ["var.memory_mb"]},
                     "memory_reservation": {"references": ["var.memory_mb"]},
                     "memory_reservation_locked_to_max": {"constant_value": True},
                     "firmware": {"constant_value": "efi"},
                     "pci_device_id": {"references": ["data.vsphere_host_pci_device.h100.id",
                                                      "data.vsphere_host_pci_device.h100"]},
                     "extra_config": {"constant_value": full_extra},
                     "network_interface": [
                         {"network_id": {"constant_value": "dvportgroup-77"}},
                         {"network_id": {"constant_value": "dvportgroup-78"}, "adapter_type": {"constant_value": "sriov"},
                          "physical_function": {"constant_value": "0000:3d:00.0"}}],
                 }},
                {"address": "data.vsphere_host.gpu01", "mode": "data", "type": "vsphere_host", "name": "gpu01",
                 "provider_config_key": "vsphere", "schema_version": 0,
                 "expressions": {"name": {"constant_value": "esx-gpu-01.example.com"},
                                 "datacenter_id": {"constant_value": "datacenter-3"}}},
                {"address": "data.vsphere_host_pci_device.h100", "mode": "data", "type": "vsphere_host_pci_device",
                 "name": "h100", "provider_config_key": "vsphere", "schema_version": 0,
                 "expressions": {"host_id": {"references": ["data.vsphere_host.gpu01.id", "data.vsphere_host.gpu01"]},
                                 "name_regex": {"constant_value": "H100"}}},
            ],
            "module_calls": {"trainer": {"source": "./modules/trainer", "count_expression": {"constant_value": 1},
                                         "module": {"resources": [
                                             {"address": "vsphere_virtual_machine.gpu_nommio", "mode": "managed",
                                              "type": "vsphere_virtual_machine", "name": "gpu_nommio",
                                              "provider_config_key": "vsphere", "schema_version": 3,
                                              "expressions": {"pci_device_id": {"constant_value": ["0000:9d:00.0"]},
                                                              "extra_config": {"constant_value": {"pciPassthru.allowP2P": "TRUE"}}}}]}}},
            "variables": {"memory_mb": {"default": 262144, "description": "VM memory in MB"},
                          "vsphere_user": {"sensitive": True}},
        },
    },
    "timestamp": "2026-03-02T10:11:12Z",
    "applyable": True,
    "complete": True,
    "errored": False,
}

state = {
    "format_version": "1.0",
    "terraform_version": TF,
    "values": {"root_module": {"resources": [
        state_resource("data.vsphere_host_pci_device.h100", "vsphere_host_pci_device", "h100", host_pci_gpu,
                       mode="data", schema_version=0),
        state_resource("vsphere_virtual_machine.gpu_full", "vsphere_virtual_machine", "gpu_full", vm_full,
                       sensitive=sensitive_of(vm_full)),
    ]}},
}

vmclass_after = {"cpu_reservation": None, "cpus": 16, "memory": 131072, "memory_reservation": 100,
                 "name": "h100-80c-class", "vgpu_devices": ["grid_h100-80c"]}
vmclass_plan = {
    "format_version": "1.2",
    "terraform_version": TF,
    "planned_values": {"root_module": {"resources": [
        state_resource("vsphere_virtual_machine_class.h100", "vsphere_virtual_machine_class", "h100", vmclass_after,
                       schema_version=0, sensitive={"vgpu_devices": [False]}),
    ]}},
    "resource_changes": [
        {"address": "vsphere_virtual_machine_class.h100", "mode": "managed", "type": "vsphere_virtual_machine_class",
         "name": "h100", "provider_name": PROVIDER,
         "change": {"actions": ["create"], "before": None, "after": vmclass_after,
                    "after_unknown": {"id": True, "vgpu_devices": [False]}, "before_sensitive": False,
                    "after_sensitive": {"vgpu_devices": [False]}}},
    ],
    "configuration": {"provider_config": {"vsphere": {"name": "vsphere", "full_name": PROVIDER}},
                      "root_module": {"resources": [
                          {"address": "vsphere_virtual_machine_class.h100", "mode": "managed",
                           "type": "vsphere_virtual_machine_class", "name": "h100", "provider_config_key": "vsphere",
                           "schema_version": 0,
                           "expressions": {"name": {"constant_value": "h100-80c-class"}, "cpus": {"constant_value": 16},
                                           "memory": {"constant_value": 131072},
                                           "memory_reservation": {"constant_value": 100},
                                           "vgpu_devices": {"constant_value": ["grid_h100-80c"]}}}]}},
    "timestamp": "2026-03-02T10:12:00Z",
    "applyable": True,
    "complete": True,
    "errored": False,
}


def old_format(p):
    """The same plan as Terraform 1.0.0 would write it: format 0.1, no *_sensitive, no timestamp etc."""
    o = copy.deepcopy(p)
    o["format_version"] = "0.1"
    o["terraform_version"] = "1.0.0"
    for k in ("timestamp", "applyable", "complete", "errored"):
        o.pop(k, None)
    for rc in o["resource_changes"]:
        rc["change"].pop("before_sensitive", None)
        rc["change"].pop("after_sensitive", None)

    def strip(m):
        for r in m.get("resources", []):
            r.pop("sensitive_values", None)
        for c in m.get("child_modules", []):
            strip(c)
    strip(o["planned_values"]["root_module"])
    o["prior_state"]["format_version"] = "0.1"
    o["prior_state"]["terraform_version"] = "1.0.0"
    strip(o["prior_state"]["values"]["root_module"])
    o["configuration"]["provider_config"]["vsphere"].pop("full_name")
    return o


def unknown_plan():
    """Values known only after apply, as jsonplan's omitUnknowns writes them: an unknown set
    element is null in `after` and true in `after_unknown`, an unknown map value is left out of
    `after` and true in `after_unknown`, a wholly unknown attribute is left out and true. Also
    a sensitive extra_config value, a VM being replaced, one being destroyed (after: null) and
    a deposed object, which give no VM."""
    p = copy.deepcopy(plan)
    p.pop("planned_values")
    p.pop("configuration")
    rc_nommio, rc_full = p["resource_changes"]
    # gpu_full: its second device comes from a resource created in the same apply, and the MMIO
    # size from a value computed at apply; one extra_config value is sensitive.
    a = rc_full["change"]["after"]
    a["pci_device_id"] = ["0000:3a:00.0", None]
    del a["extra_config"]["pciPassthru.64bitMMIOSizeGB"]
    a["extra_config"]["guestinfo.token"] = "s3cr3t"
    u = rc_full["change"]["after_unknown"]
    u["pci_device_id"] = [False, True]
    u["extra_config"] = {"pciPassthru.64bitMMIOSizeGB": True}
    rc_full["change"]["after_sensitive"]["extra_config"] = {"guestinfo.token": True}
    # gpu_nommio: replaced (delete, then create), with extra_config and firmware unknown.
    rc_nommio["change"]["actions"] = ["delete", "create"]
    rc_nommio["change"]["before"] = copy.deepcopy(vm_nommio)
    rc_nommio["change"]["before_sensitive"] = sensitive_of(vm_nommio)
    rc_nommio["change"]["replace_paths"] = [["pci_device_id"]]
    an = rc_nommio["change"]["after"]
    del an["extra_config"]
    del an["firmware"]
    rc_nommio["change"]["after_unknown"]["extra_config"] = True
    rc_nommio["change"]["after_unknown"]["firmware"] = True
    old = copy.deepcopy(vm_full)
    old["name"] = "gpu-old-01"
    p["resource_changes"] += [
        {"address": "vsphere_virtual_machine.gpu_old", "mode": "managed", "type": "vsphere_virtual_machine",
         "name": "gpu_old", "provider_name": PROVIDER,
         "change": {"actions": ["delete"], "before": old, "after": None, "after_unknown": {},
                    "before_sensitive": sensitive_of(old), "after_sensitive": False}},
        {"address": "vsphere_virtual_machine.gpu_cbd", "mode": "managed", "type": "vsphere_virtual_machine",
         "name": "gpu_cbd", "provider_name": PROVIDER, "deposed": "00000001",
         "change": {"actions": ["delete"], "before": old, "after": None, "after_unknown": {},
                    "before_sensitive": sensitive_of(old), "after_sensitive": False}},
    ]
    return p


for name, doc in (("plan-two-gpu-vms.json", plan), ("state-one-vm.json", state),
                  ("plan-vm-class.json", vmclass_plan), ("plan-two-gpu-vms.tf1.0.0.json", old_format(plan)),
                  ("plan-unknown.json", unknown_plan())):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(doc, f, indent=2, sort_keys=False)
        f.write("\n")
    print("wrote", name)
