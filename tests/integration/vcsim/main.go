// SPDX-License-Identifier: Apache-2.0

// Command vcsim starts govmomi's vCenter simulator (simulator.VPX) with TLS on 127.0.0.1 and
// prints one line, "URL VM-MOREF VM-NAME", naming the first VM of the inventory by name. It
// serves until it gets SIGINT or SIGTERM, or until -timeout passes, so a test that forgets it
// never leaves it running.
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"sort"
	"syscall"
	"time"

	"github.com/vmware/govmomi/simulator"
)

func main() {
	timeout := flag.Duration("timeout", 5*time.Minute, "exit after this long")
	flag.Parse()

	model := simulator.VPX()
	if err := model.Create(); err != nil {
		fmt.Fprintln(os.Stderr, "vcsim:", err)
		os.Exit(1)
	}
	defer model.Remove()

	model.Service.TLS = new(tls.Config)
	model.Service.Listen = &url.URL{Host: "127.0.0.1:0"}
	server := model.Service.NewServer()
	defer server.Close()

	vms := simulator.Map.All("VirtualMachine")
	if len(vms) == 0 {
		fmt.Fprintln(os.Stderr, "vcsim: the inventory has no VM")
		os.Exit(1)
	}
	sort.Slice(vms, func(i, j int) bool {
		return vms[i].Entity().Name < vms[j].Entity().Name
	})
	vm := vms[0]
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
