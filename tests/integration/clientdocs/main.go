// SPDX-License-Identifier: Apache-2.0

// Command clientdocs writes the JSON that govc 0.24 prints for
//
//	govc vm.info -json VM...                         (-vm-info FILE)
//	govc object.collect -json VM config              (-collect FILE, the first VM)
//	govc object.collect -json -type m / config name  (-collect-type FILE)
//
// against a vCenter (the tests' simulator), with govc's own types and encoder calls, from the
// govmomi library Debian's golang-github-vmware-govmomi-dev (0.24.2) installs: that package has
// no govc/ directory, so govc itself cannot be built from it. What govc 0.24.2 does, and this
// program does the same way:
//   - govc/vm/info.go (Run): the VMs found by name, then
//     property.DefaultCollector(c).Retrieve(ctx, refs, nil, &res.VirtualMachines) (with -json,
//     OutputFlag.All() is true and props is nil: every property), res an infoResult whose only
//     exported field is `VirtualMachines []mo.VirtualMachine`;
//   - govc/object/collect.go (Run): a property.WaitFilter with filter.Add(ref, ref.Type, props),
//     or with -type a ContainerView and filter.Add(v.Reference(), kind, props,
//     v.TraversalSpec()); property.WaitForUpdates, each ObjectUpdate written as a `change`,
//     whose MarshalJSON is json.Marshal(pc.Update.ChangeSet), or json.Marshal(pc.Update) with
//     -type; the callback stops after the first updates (-n 0, no -wait);
//   - govc/flags/output.go (WriteResult): json.NewEncoder(out), SetIndent("", "  ") (GOVC_INDENT
//     unset), Encode(result).
//
// Usage: clientdocs -url https://user:pass@host/sdk -insecure [-vm-info F] [-collect F]
// [-collect-type F] VM-NAME...
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// govc/vm/info.go: type infoResult (its unexported fields are not encoded).
type infoResult struct {
	VirtualMachines []mo.VirtualMachine
}

// govc/object/collect.go: type change; kind is `len(pc.cmd.kind) != 0` (the -type flag).
type change struct {
	kind   bool
	Update types.ObjectUpdate
}

func (pc *change) MarshalJSON() ([]byte, error) {
	if !pc.kind {
		return json.Marshal(pc.Update.ChangeSet)
	}
	return json.Marshal(pc.Update)
}

// govc/flags/output.go: WriteResult with -json.
func writeResult(out io.Writer, result interface{}) error {
	e := json.NewEncoder(out)
	e.SetIndent("", "  ")
	return e.Encode(result)
}

func collect(ctx context.Context, pc *property.Collector, filter *property.WaitFilter, kind bool,
	out io.Writer) error {
	var werr error
	err := property.WaitForUpdates(ctx, pc, filter, func(updates []types.ObjectUpdate) bool {
		for _, update := range updates {
			if err := writeResult(out, &change{kind, update}); err != nil && werr == nil {
				werr = err
			}
		}
		return true // cmd.n-- gives -1 and cmd.wait is 0
	})
	if err != nil {
		return err
	}
	return werr
}

func create(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func run() error {
	rawURL := flag.String("url", "", "vCenter URL with credentials")
	insecure := flag.Bool("insecure", false, "do not verify the certificate (govc -k)")
	vmInfo := flag.String("vm-info", "", "write `govc vm.info -json VM...` to this file")
	collectOne := flag.String("collect", "", "write `govc object.collect -json VM config` (the first VM)")
	collectType := flag.String("collect-type", "", "write `govc object.collect -json -type m / config name`")
	flag.Parse()

	ctx := context.Background()
	u, err := soap.ParseURL(*rawURL)
	if err != nil {
		return err
	}
	c, err := govmomi.NewClient(ctx, u, *insecure)
	if err != nil {
		return err
	}
	defer c.Logout(ctx)

	finder := find.NewFinder(c.Client, true)
	dc, err := finder.DefaultDatacenter(ctx)
	if err != nil {
		return err
	}
	finder.SetDatacenter(dc)
	var refs []types.ManagedObjectReference
	for _, name := range flag.Args() {
		vms, err := finder.VirtualMachineList(ctx, name)
		if err != nil {
			return err
		}
		for _, vm := range vms {
			refs = append(refs, vm.Reference())
		}
	}
	pc := property.DefaultCollector(c.Client)

	if *vmInfo != "" {
		var res infoResult
		if len(refs) != 0 {
			if err := pc.Retrieve(ctx, refs, nil, &res.VirtualMachines); err != nil {
				return err
			}
		}
		if err := create(*vmInfo, func(w io.Writer) error { return writeResult(w, &res) }); err != nil {
			return err
		}
	}
	if *collectOne != "" {
		if len(refs) == 0 {
			return fmt.Errorf("-collect needs a VM")
		}
		filter := new(property.WaitFilter)
		filter.Add(refs[0], refs[0].Type, []string{"config"})
		err := create(*collectOne, func(w io.Writer) error { return collect(ctx, pc, filter, false, w) })
		if err != nil {
			return err
		}
	}
	if *collectType != "" {
		m := view.NewManager(c.Client)
		v, err := m.CreateContainerView(ctx, c.ServiceContent.RootFolder, []string{"VirtualMachine"}, true)
		if err != nil {
			return err
		}
		defer func() { _ = v.Destroy(ctx) }()
		filter := new(property.WaitFilter)
		filter.Add(v.Reference(), "VirtualMachine", []string{"config", "name"}, v.TraversalSpec())
		err = create(*collectType, func(w io.Writer) error { return collect(ctx, pc, filter, true, w) })
		if err != nil {
			return err
		}
	}
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "clientdocs:", err)
		os.Exit(1)
	}
}
