// SPDX-License-Identifier: Apache-2.0

// Command vcsim starts govmomi's vCenter simulator (simulator.VPX) with TLS on 127.0.0.1 and
// prints one line, "URL VM-MOREF VM-NAME", naming the first VM of the inventory by name. It
// serves until it gets SIGINT or SIGTERM, or until -timeout passes, so a test that forgets it
// never leaves it running.
//
// The standalone host DC0_H0 is a GPU host: two sockets, each a root port with a Broadcom
// PEX890xx switch holding an NVIDIA H100 (10de:2330) and a ConnectX-7 (15b3:1021, SR-IOV) in
// hardware.pciDevice with parentBridge, config.pciPassthruInfo (HostSriovInfo for the NICs),
// hardware.numaInfo with each node's PCI devices, a system UUID, and four vGPU types of the H100
// in config.sharedPassthruGpuTypes and config.sharedGpuCapabilities. Its VM DC0_H0_VM0 has a
// GPU and a NIC passed through, without the P2P settings. The PropertyCollector honours
// RetrieveOptions.maxObjects with ContinueRetrievePropertiesEx (govmomi 0.24's returns every
// object at once). Options for the tests: -vms N (at least N VMs), -delay METHOD=MS (a slow
// server), -vanish NAME (that VM is removed after the first answer holding VM configs),
// -requests FILE (a line per RetrievePropertiesEx/ContinueRetrievePropertiesEx served),
// -fail-reconfig (every ReconfigVM_Task fails), -stray-passthru (the GPU host's
// config.pciPassthruInfo names a device its hardware.pciDevice lacks: a warning when read).
package main

import (
	"bytes"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// GPUHostUUID is DC0_H0's hardware.systemInfo.uuid.
const GPUHostUUID = "4c4c4544-0048-3510-8052-b4c04f4e3332"

var (
	batchMu     sync.Mutex
	batches     = map[string]pending{}
	nextToken   = 0
	vanishName  string
	vanished    bool
	requestsLog *os.File
)

func record(method string) {
	if requestsLog != nil {
		fmt.Fprintln(requestsLog, method)
	}
}

// batchingPC is the simulator's PropertyCollector answering maxObjects objects at a time. It
// has no state of its own (the simulator copies a zero one for each session): the rest of
// each answer waits in `batches` under its token.
type batchingPC struct {
	simulator.PropertyCollector
}

// The objects of an answer not sent yet, and the batch size its request asked for.
type pending struct {
	objects []types.ObjectContent
	max     int32
}

// page returns at most max objects and the token of the rest (empty when none are left).
func page(objects []types.ObjectContent, max int32) ([]types.ObjectContent, string) {
	if max <= 0 || int(max) >= len(objects) {
		return objects, ""
	}
	nextToken++
	token := strconv.Itoa(nextToken)
	batches[token] = pending{objects[max:], max}
	return objects[:max], token
}

func asksConfig(r *types.RetrievePropertiesEx) bool {
	for _, spec := range r.SpecSet {
		for _, p := range spec.PropSet {
			for _, path := range p.PathSet {
				if path == "config" {
					return true
				}
			}
		}
	}
	return false
}

func (pc *batchingPC) RetrievePropertiesEx(ctx *simulator.Context, r *types.RetrievePropertiesEx) soap.HasFault {
	record("RetrievePropertiesEx")
	res := pc.PropertyCollector.RetrievePropertiesEx(ctx, r)
	body, ok := res.(*methods.RetrievePropertiesExBody)
	if !ok || body.Fault_ != nil || body.Res == nil || body.Res.Returnval == nil {
		return res
	}
	batchMu.Lock()
	defer batchMu.Unlock()
	objects, token := page(body.Res.Returnval.Objects, r.Options.MaxObjects)
	body.Res.Returnval.Objects = objects
	body.Res.Returnval.Token = token
	if vanishName != "" && !vanished && asksConfig(r) {
		// The VM goes away after the first batch of configs, as if deleted meanwhile.
		for _, vm := range simulator.Map.All("VirtualMachine") {
			if vm.Entity().Name == vanishName {
				simulator.Map.Remove(vm.Reference())
				vanished = true
			}
		}
	}
	return body
}

func (pc *batchingPC) ContinueRetrievePropertiesEx(ctx *simulator.Context, r *types.ContinueRetrievePropertiesEx) soap.HasFault {
	record("ContinueRetrievePropertiesEx")
	body := &methods.ContinueRetrievePropertiesExBody{}
	batchMu.Lock()
	defer batchMu.Unlock()
	rest, ok := batches[r.Token]
	if !ok {
		body.Fault_ = simulator.Fault("unknown token", &types.InvalidArgument{InvalidProperty: "token"})
		return body
	}
	delete(batches, r.Token)
	objects, token := page(rest.objects, rest.max)
	body.Res = &types.ContinueRetrievePropertiesExResponse{
		Returnval: types.RetrieveResult{Objects: objects, Token: token},
	}
	return body
}

// pciDevice is one HostPciDevice; ids as the API's signed shorts.
func pciDevice(id string, class, vendor, device uint16, vendorName, deviceName, parent string) types.HostPciDevice {
	var bus, slot, fn uint64
	parts := strings.FieldsFunc(id, func(r rune) bool { return r == ':' || r == '.' })
	bus, _ = strconv.ParseUint(parts[1], 16, 8)
	slot, _ = strconv.ParseUint(parts[2], 16, 8)
	fn, _ = strconv.ParseUint(parts[3], 16, 8)
	return types.HostPciDevice{
		Id: id, ClassId: int16(class), Bus: byte(bus), Slot: byte(slot), Function: byte(fn),
		VendorId: int16(vendor), SubVendorId: int16(vendor), VendorName: vendorName,
		DeviceId: int16(device), SubDeviceId: int16(device), DeviceName: deviceName,
		ParentBridge: parent,
	}
}

// gpuHost turns the host into the GPU host the tests read.
func gpuHost(host *simulator.HostSystem) {
	const (
		intel, broadcom, nvidia, mellanox = 0x8086, 0x1000, 0x10de, 0x15b3
	)
	var devices []types.HostPciDevice
	var node [2][]string
	add := func(socket int, d types.HostPciDevice) {
		devices = append(devices, d)
		node[socket] = append(node[socket], d.Id)
	}
	for socket, root := range []string{"15", "97"} {
		rootBus, _ := strconv.ParseUint(root, 16, 8)
		hex := func(n uint64) string { return fmt.Sprintf("%02x", n) }
		rp := "0000:" + root + ":01.0"
		up := "0000:" + hex(rootBus+1) + ":00.0"
		add(socket, pciDevice("0000:"+root+":00.0", 0x0600, intel, 0x09a2, "Intel Corporation", "Ice Lake Memory Map/VT-d", ""))
		add(socket, pciDevice(rp, 0x0604, intel, 0x347a, "Intel Corporation", "Ice Lake PCI Express Root Port", ""))
		add(socket, pciDevice(up, 0x0604, broadcom, 0xc030, "Broadcom / LSI", "PEX890xx PCIe Gen 5 Switch", rp))
		for port, end := range []struct {
			class, vendor, device uint16
			vendorName, name      string
		}{
			{0x0302, nvidia, 0x2330, "NVIDIA Corporation", "GH100 [H100 SXM5 80GB]"},
			{0x0207, mellanox, 0x1021, "Mellanox Technologies", "MT2910 Family [ConnectX-7]"},
		} {
			down := fmt.Sprintf("0000:%s:%02x.0", hex(rootBus+2), port)
			bus := hex(rootBus + 3 + uint64(port))
			add(socket, pciDevice(down, 0x0604, broadcom, 0xc030, "Broadcom / LSI", "PEX890xx PCIe Gen 5 Switch", up))
			add(socket, pciDevice("0000:"+bus+":00.0", end.class, end.vendor, end.device, end.vendorName, end.name, down))
			if end.vendor == mellanox && socket == 0 {
				for vf := 1; vf <= 4; vf++ {
					add(socket, pciDevice(fmt.Sprintf("0000:%s:00.%d", bus, vf), 0x0207, mellanox, 0x101e, "Mellanox Technologies", "ConnectX Family mlx5Gen Virtual Function", down))
				}
			}
		}
	}
	hw := *host.Hardware
	hw.PciDevice = devices
	hw.SystemInfo.Uuid = GPUHostUUID
	hw.NumaInfo = &types.HostNumaInfo{Type: "NUMA", NumNodes: 2}
	for n := 0; n < 2; n++ {
		var cpus []int16
		for c := 0; c < 32; c++ {
			cpus = append(cpus, int16(n*32+c))
		}
		hw.NumaInfo.NumaNode = append(hw.NumaInfo.NumaNode, types.HostNumaNode{
			TypeId: byte(n), CpuID: cpus, MemoryRangeBegin: int64(n) << 40,
			MemoryRangeLength: 1 << 40, PciId: node[n],
		})
	}
	host.Hardware = &hw

	passthru := func(id string, enabled, active bool) *types.HostPciPassthruInfo {
		return &types.HostPciPassthruInfo{Id: id, PassthruEnabled: enabled, PassthruCapable: true, PassthruActive: active}
	}
	config := *host.Config
	config.PciPassthruInfo = []types.BaseHostPciPassthruInfo{
		passthru("0000:18:00.0", true, true),
		// The NIC of socket 0 gives SR-IOV VFs: its PF stays with the VMkernel.
		&types.HostSriovInfo{HostPciPassthruInfo: *passthru("0000:19:00.0", false, false),
			SriovEnabled: true, SriovCapable: true, SriovActive: true,
			NumVirtualFunctionRequested: 4, NumVirtualFunction: 4, MaxVirtualFunctionSupported: 16},
		passthru("0000:9a:00.0", true, true),
		&types.HostSriovInfo{HostPciPassthruInfo: *passthru("0000:9b:00.0", true, true),
			SriovCapable: true, MaxVirtualFunctionSupported: 16},
	}
	// NVIDIA's vGPU manager offers the H100 SXM5's C-series types: their names, and what a VM
	// holding each may do (snapshots and suspend, not vMotion for the whole-GPU type).
	for _, t := range []struct {
		name    string
		migrate bool
	}{{"nvidia_h100xm-80c", false}, {"nvidia_h100xm-40c", true}, {"nvidia_h100xm-20c", true}, {"nvidia_h100xm-10c", true}} {
		config.SharedPassthruGpuTypes = append(config.SharedPassthruGpuTypes, t.name)
		config.SharedGpuCapabilities = append(config.SharedGpuCapabilities, types.HostSharedGpuCapabilities{
			Vgpu: t.name, DiskSnapshotSupported: true, MemorySnapshotSupported: false,
			SuspendSupported: true, MigrateSupported: t.migrate,
		})
	}
	host.Config = &config
}

// gpuVM gives the VM a GPU and a NIC of the GPU host as a VM built by hand would: passthrough
// devices without pciPassthru.allowP2P, RelaxACSforP2P or an MMIO size, BIOS firmware.
func gpuVM(vm *simulator.VirtualMachine, host *simulator.HostSystem) {
	vm.Runtime.Host = &host.Self
	backing := func(id, device string, vendor uint16, name string) *types.VirtualPCIPassthroughDeviceBackingInfo {
		return &types.VirtualPCIPassthroughDeviceBackingInfo{
			VirtualDeviceDeviceBackingInfo: types.VirtualDeviceDeviceBackingInfo{DeviceName: name},
			Id:                             id, DeviceId: device, SystemId: GPUHostUUID, VendorId: int16(vendor),
		}
	}
	for i, b := range []*types.VirtualPCIPassthroughDeviceBackingInfo{
		backing("0000:18:00.0", "2330", 0x10de, "GH100 [H100 SXM5 80GB]"),
		backing("0000:9b:00.0", "1021", 0x15b3, "MT2910 Family [ConnectX-7]"),
	} {
		vm.Config.Hardware.Device = append(vm.Config.Hardware.Device, &types.VirtualPCIPassthrough{
			VirtualDevice: types.VirtualDevice{
				Key: int32(13000 + i), ControllerKey: 100, UnitNumber: types.NewInt32(int32(18 + i)),
				DeviceInfo: &types.Description{Label: fmt.Sprintf("PCI device %d", i), Summary: b.DeviceName},
				Backing:    b,
			},
		})
	}
	vm.Config.Firmware = "bios"
	vm.Config.ExtraConfig = append(vm.Config.ExtraConfig,
		&types.OptionValue{Key: "pciPassthru.use64bitMMIO", Value: "TRUE"})
}

// The opening tag of a ReconfigVM_Task's spec.
var specOpen = regexp.MustCompile(`(<spec(?:\s[^>]*)?>)`)

// failingReconfig gives every ReconfigVM_Task's spec a guestId the simulator does not know, so
// that the task fails (InvalidArgument) after the simulator has applied the spec's memory but
// before its devices: a reconfiguration that fails on the server, for apply's task-failed path.
func failingReconfig(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if bytes.Contains(body, []byte("<ReconfigVM_Task")) {
			body = specOpen.ReplaceAll(body, []byte("${1}<guestId>vmxkit-no-such-guest</guestId>"))
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

func main() {
	timeout := flag.Duration("timeout", 5*time.Minute, "exit after this long")
	vms := flag.Int("vms", 0, "create at least this many VMs")
	delay := flag.String("delay", "", "METHOD=MS: answer METHOD after MS milliseconds")
	flag.StringVar(&vanishName, "vanish", "", "remove this VM after the first answer with VM configs")
	requests := flag.String("requests", "", "append each property collector request's method here")
	applyVM := flag.Bool("apply", false, "power DC0_H0_VM0 off, so that vmxkit apply may change it")
	held := flag.Bool("held", false, "give DC0_H0_VM1 (powered on) the GPU 0000:9a:00.0")
	password := flag.String("password", "pass", "the password of user 'user' (in the URL printed)")
	strayPassthru := flag.Bool("stray-passthru", false, "give DC0_H0 a config.pciPassthruInfo entry for a device it does not list")
	failReconfig := flag.Bool("fail-reconfig", false, "fail every ReconfigVM_Task (InvalidArgument), its memory applied, its devices not")
	flag.Parse()

	model := simulator.VPX()
	if *vms > 0 {
		// VMs are made per resource pool: the cluster's and the standalone host's.
		model.Machine = (*vms + 1) / 2
		if model.Machine < 2 {
			model.Machine = 2
		}
	}
	if *delay != "" {
		parts := strings.SplitN(*delay, "=", 2)
		ms, err := strconv.Atoi(parts[len(parts)-1])
		if len(parts) != 2 || err != nil {
			fmt.Fprintln(os.Stderr, "vcsim: -delay METHOD=MS")
			os.Exit(2)
		}
		model.DelayConfig.MethodDelay = map[string]int{parts[0]: ms}
	}
	if *requests != "" {
		f, err := os.OpenFile(*requests, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "vcsim:", err)
			os.Exit(1)
		}
		requestsLog = f
		defer f.Close()
	}
	if err := model.Create(); err != nil {
		fmt.Fprintln(os.Stderr, "vcsim:", err)
		os.Exit(1)
	}
	defer model.Remove()

	pc := &batchingPC{}
	pc.Self = model.ServiceContent.PropertyCollector
	simulator.Map.Put(pc)

	var gpu *simulator.HostSystem
	for _, h := range simulator.Map.All("HostSystem") {
		if h.Entity().Name == "DC0_H0" {
			gpu = h.(*simulator.HostSystem)
		}
	}
	if gpu == nil {
		fmt.Fprintln(os.Stderr, "vcsim: no host DC0_H0")
		os.Exit(1)
	}
	gpuHost(gpu)
	if *strayPassthru {
		gpu.Config.PciPassthruInfo = append(gpu.Config.PciPassthruInfo,
			&types.HostPciPassthruInfo{Id: "0000:ff:1f.7", PassthruCapable: true})
	}
	for _, v := range simulator.Map.All("VirtualMachine") {
		vm := v.(*simulator.VirtualMachine)
		if v.Entity().Name == "DC0_H0_VM0" {
			gpuVM(vm, gpu)
			if *applyVM {
				vm.Runtime.PowerState = types.VirtualMachinePowerStatePoweredOff
				vm.Summary.Runtime.PowerState = types.VirtualMachinePowerStatePoweredOff
			}
		}
		if v.Entity().Name == "DC0_H0_VM1" && *held {
			vm.Runtime.Host = &gpu.Self
			vm.Config.Hardware.Device = append(vm.Config.Hardware.Device, &types.VirtualPCIPassthrough{
				VirtualDevice: types.VirtualDevice{
					Key: 13000, ControllerKey: 100, UnitNumber: types.NewInt32(18),
					Backing: &types.VirtualPCIPassthroughDeviceBackingInfo{
						Id: "0000:9a:00.0", DeviceId: "2330", SystemId: GPUHostUUID, VendorId: 0x10de,
					},
				},
			})
		}
	}

	model.Service.TLS = new(tls.Config)
	// Credentials checked for real (the default accepts any): user and -password, in the URL printed.
	model.Service.Listen = &url.URL{Host: "127.0.0.1:0", User: url.UserPassword("user", *password)}
	server := model.Service.NewServer()
	defer server.Close()
	if *failReconfig {
		// Before the URL is printed: no client has connected yet.
		server.Config.Handler = failingReconfig(server.Config.Handler)
	}

	all := simulator.Map.All("VirtualMachine")
	if len(all) == 0 {
		fmt.Fprintln(os.Stderr, "vcsim: the inventory has no VM")
		os.Exit(1)
	}
	sort.Slice(all, func(i, j int) bool {
		return all[i].Entity().Name < all[j].Entity().Name
	})
	vm := all[0]
	fmt.Printf("%s %s %s\n", server.URL.String(), vm.Reference().Value, vm.Entity().Name)
	os.Stdout.Sync()

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-signals:
	case <-time.After(*timeout):
		fmt.Fprintln(os.Stderr, "vcsim: timeout, exiting")
	}
}
