// SPDX-License-Identifier: Apache-2.0

// Command tfjsoncheck decodes `terraform show -json` documents with HashiCorp's own types
// (github.com/hashicorp/terraform-json, Debian's golang-github-hashicorp-terraform-json-dev,
// built in GOPATH mode), so that the plan and state fixtures vmxkit's reader is tested on have
// the real format. For every *.json of each DIR given (recursively), or each FILE given, it
// tells a plan from a state by its top-level members, decodes it, and prints each
// vsphere_virtual_machine and vsphere_virtual_machine_class with the attributes vmxkit reads.
//
// Debian 12 packages terraform-json 0.5.0, whose Plan and State accept only format_version
// "0.1" (Terraform 0.12 to 1.0.0): they compare the version exactly. Newer Terraform writes
// plan "1.2" and state "1.0". The JSON format's documentation promises that a minor version
// only adds members, which encoding/json ignores; so a document of major version 0 or 1 is
// decoded with its format_version (and its prior_state's) rewritten to "0.1", and a note says
// so. A major version other than 0 or 1 is an error, as upstream terraform-json's
// constraint ">= 0.1, < 2.0" makes it.
//
// Exits 1 when a document does not decode, or when no document was checked; 2 on usage errors.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/ioutil"
	"os"
	"path/filepath"
	"sort"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintf(os.Stderr, "usage: %s DIR|FILE.json...\n", os.Args[0])
		os.Exit(2)
	}
	var files []string
	for _, arg := range os.Args[1:] {
		err := filepath.Walk(arg, func(path string, info os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			if !info.IsDir() && strings.HasSuffix(path, ".json") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "tfjsoncheck:", err)
			os.Exit(2)
		}
	}
	sort.Strings(files)
	if len(files) == 0 {
		fmt.Fprintln(os.Stderr, "tfjsoncheck: no .json file to check")
		os.Exit(1)
	}
	failed := 0
	for _, f := range files {
		if err := check(f); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL %s: %v\n", f, err)
			failed++
		}
	}
	fmt.Printf("tfjsoncheck: %d of %d documents decoded\n", len(files)-failed, len(files))
	if failed > 0 {
		os.Exit(1)
	}
}

func check(name string) error {
	data, err := ioutil.ReadFile(name)
	if err != nil {
		return err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	version, data, notes, err := compat(top)
	if err != nil {
		return err
	}
	plan := false
	for _, key := range []string{"planned_values", "resource_changes", "prior_state", "configuration"} {
		if _, ok := top[key]; ok {
			plan = true
		}
	}
	vms := 0
	if plan {
		var p tfjson.Plan
		if err := json.Unmarshal(data, &p); err != nil {
			return fmt.Errorf("decoding the plan: %v", err)
		}
		fmt.Printf("%s: plan, format_version %s, Terraform %s\n%s", name, version, p.TerraformVersion, notes)
		for _, rc := range p.ResourceChanges {
			if rc.Mode != tfjson.ManagedResourceMode || !vsphereVM(rc.Type) || rc.Change == nil {
				continue
			}
			after, _ := rc.Change.After.(map[string]interface{})
			unknown, _ := rc.Change.AfterUnknown.(map[string]interface{})
			fmt.Printf("  %s %v\n", rc.Address, rc.Change.Actions)
			printAttributes(rc.Type, after, unknown)
			vms++
		}
	} else {
		var s tfjson.State
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("decoding the state: %v", err)
		}
		fmt.Printf("%s: state, format_version %s, Terraform %s\n%s", name, version, s.TerraformVersion, notes)
		if s.Values != nil {
			vms += walk(s.Values.RootModule)
		}
	}
	if vms == 0 {
		return fmt.Errorf("no vsphere_virtual_machine or vsphere_virtual_machine_class")
	}
	return nil
}

// compat rewrites format_version (top level and prior_state) to the "0.1" that tfjson 0.5.0
// accepts, for major versions 0 and 1; it returns the document's own version, the rewritten
// document, and a note line per version rewritten.
func compat(top map[string]json.RawMessage) (string, []byte, string, error) {
	notes := ""
	fix := func(obj map[string]json.RawMessage, where string) (string, error) {
		var v string
		if err := json.Unmarshal(obj["format_version"], &v); err != nil {
			return "", fmt.Errorf("%s format_version: %v", where, err)
		}
		if !strings.HasPrefix(v, "0.") && !strings.HasPrefix(v, "1.") {
			return "", fmt.Errorf("%s format_version %q: unsupported major version", where, v)
		}
		if v != tfjson.PlanFormatVersion {
			notes += fmt.Sprintf("  note: %s format_version %q read as %q (tfjson 0.5.0 knows only %q)\n",
				where, v, tfjson.PlanFormatVersion, tfjson.PlanFormatVersion)
		}
		obj["format_version"] = json.RawMessage(`"` + tfjson.PlanFormatVersion + `"`)
		return v, nil
	}
	version, err := fix(top, "the document's")
	if err != nil {
		return "", nil, "", err
	}
	if raw, ok := top["prior_state"]; ok {
		var prior map[string]json.RawMessage
		if err := json.Unmarshal(raw, &prior); err != nil {
			return "", nil, "", fmt.Errorf("prior_state: %v", err)
		}
		if _, err := fix(prior, "prior_state's"); err != nil {
			return "", nil, "", err
		}
		top["prior_state"], _ = json.Marshal(prior)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(top); err != nil {
		return "", nil, "", err
	}
	return version, buf.Bytes(), notes, nil
}

func vsphereVM(t string) bool {
	return t == "vsphere_virtual_machine" || t == "vsphere_virtual_machine_class"
}

func walk(m *tfjson.StateModule) int {
	if m == nil {
		return 0
	}
	n := 0
	for _, r := range m.Resources {
		if r.Mode != tfjson.ManagedResourceMode || !vsphereVM(r.Type) {
			continue
		}
		fmt.Printf("  %s\n", r.Address)
		printAttributes(r.Type, r.AttributeValues, nil)
		n++
	}
	for _, c := range m.ChildModules {
		n += walk(c)
	}
	return n
}

func printAttributes(typ string, v, unknown map[string]interface{}) {
	names := []string{"host_system_id", "num_cpus", "memory", "memory_reservation",
		"memory_reservation_locked_to_max", "firmware", "pci_device_id", "extra_config",
		"network_interface"}
	if typ == "vsphere_virtual_machine_class" {
		names = []string{"name", "cpus", "memory", "memory_reservation", "vgpu_devices"}
	}
	for _, name := range names {
		if u, ok := unknown[name]; ok && u == true {
			fmt.Printf("    %s = (known after apply)\n", name)
			continue
		}
		val, ok := v[name]
		if !ok {
			continue
		}
		b, _ := json.Marshal(val)
		fmt.Printf("    %s = %s\n", name, b)
	}
}
