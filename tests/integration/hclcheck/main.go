// SPDX-License-Identifier: Apache-2.0

// Command hclcheck checks the HCL that vmxkit writes for Terraform with HashiCorp's own HCL
// library (github.com/hashicorp/hcl/v2, Debian's golang-github-hashicorp-hcl-v2-dev, built in
// GOPATH mode). For every FILE.tf of each DIR given (or each FILE given) it
//
//   - parses it with hclparse, as Terraform does;
//   - checks that it is already in `terraform fmt` layout (hclwrite.Format gives it back);
//   - evaluates every argument of every resource block with no variables: each must be a
//     literal, and each key of an object (extra_config) a quoted string, not a reference;
//   - turns the resource blocks into the `values` of a `terraform show -json` state document
//     (format 1.0): arguments as JSON, nested blocks as lists of objects;
//   - compares that document with FILE.tf.state.json beside it (-update writes it instead).
//
// vmxkit's own Terraform JSON reader reads those state documents back in its unit tests, so
// the round trip plan -> HCL -> (HashiCorp's parser) -> JSON -> vmxkit is checked end to end.
// Exits 1 on any problem, or when no file was checked; 2 on usage errors.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/ioutil"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

const provider = "registry.terraform.io/vmware/vsphere"

func main() {
	update := flag.Bool("update", false, "write FILE.tf.state.json instead of comparing with it")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: %s [-update] DIR|FILE.tf...\n", os.Args[0])
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var files []string
	for _, arg := range flag.Args() {
		st, err := os.Stat(arg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "hclcheck:", err)
			os.Exit(2)
		}
		if !st.IsDir() {
			files = append(files, arg)
			continue
		}
		found, _ := filepath.Glob(filepath.Join(arg, "*.tf"))
		sort.Strings(found)
		files = append(files, found...)
	}
	if len(files) == 0 {
		fmt.Fprintln(os.Stderr, "hclcheck: no .tf file to check")
		os.Exit(1)
	}
	failed := 0
	for _, f := range files {
		if err := check(f, *update); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL %s: %v\n", f, err)
			failed++
			continue
		}
		fmt.Printf("ok %s\n", f)
	}
	fmt.Printf("hclcheck: %d of %d files passed\n", len(files)-failed, len(files))
	if failed > 0 {
		os.Exit(1)
	}
}

func check(name string, update bool) error {
	src, err := ioutil.ReadFile(name)
	if err != nil {
		return err
	}
	parser := hclparse.NewParser()
	file, diags := parser.ParseHCL(src, name)
	if diags.HasErrors() {
		return fmt.Errorf("does not parse:\n%s", diagText(parser, diags))
	}
	if formatted := hclwrite.Format(src); !bytes.Equal(formatted, src) {
		return fmt.Errorf("not in terraform fmt layout; hclwrite.Format gives:\n%s", formatted)
	}
	body, ok := file.Body.(*hclsyntax.Body)
	if !ok {
		return fmt.Errorf("not native HCL syntax")
	}
	var resources []interface{}
	for _, blk := range body.Blocks {
		if blk.Type != "resource" || len(blk.Labels) != 2 {
			return fmt.Errorf("line %d: a %s block: only resource blocks expected",
				blk.TypeRange.Start.Line, blk.Type)
		}
		values, err := bodyValues(parser, blk.Body)
		if err != nil {
			return fmt.Errorf("%s.%s: %v", blk.Labels[0], blk.Labels[1], err)
		}
		resources = append(resources, map[string]interface{}{
			"address":          blk.Labels[0] + "." + blk.Labels[1],
			"mode":             "managed",
			"type":             blk.Labels[0],
			"name":             blk.Labels[1],
			"provider_name":    provider,
			"schema_version":   0,
			"values":           values,
			"sensitive_values": map[string]interface{}{},
		})
	}
	if len(resources) == 0 {
		return fmt.Errorf("no resource block")
	}
	state := map[string]interface{}{
		"format_version":    "1.0",
		"terraform_version": "hclcheck (hashicorp/hcl/v2)",
		"values":            map[string]interface{}{"root_module": map[string]interface{}{"resources": resources}},
	}
	out, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return err
	}
	out = append(out, '\n')
	golden := name + ".state.json"
	if update {
		return ioutil.WriteFile(golden, out, 0o644)
	}
	want, err := ioutil.ReadFile(golden)
	if err != nil {
		return fmt.Errorf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(want, out) {
		return fmt.Errorf("%s differs from what the HCL gives:\n%s", golden, out)
	}
	return nil
}

// bodyValues evaluates a block body with no variables: attributes as their JSON values, nested
// blocks as lists of objects by block type, as `terraform show -json` writes them.
func bodyValues(parser *hclparse.Parser, body *hclsyntax.Body) (map[string]interface{}, error) {
	values := map[string]interface{}{}
	for name, attr := range body.Attributes {
		v, diags := attr.Expr.Value(nil)
		if diags.HasErrors() {
			return nil, fmt.Errorf("%s (line %d) is not a literal:\n%s", name,
				attr.SrcRange.Start.Line, diagText(parser, diags))
		}
		raw, err := ctyjson.SimpleJSONValue{Value: v}.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		values[name] = json.RawMessage(raw)
	}
	for _, blk := range body.Blocks {
		if len(blk.Labels) != 0 {
			return nil, fmt.Errorf("line %d: a nested block with labels", blk.TypeRange.Start.Line)
		}
		inner, err := bodyValues(parser, blk.Body)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", blk.Type, err)
		}
		list, _ := values[blk.Type].([]interface{})
		values[blk.Type] = append(list, inner)
	}
	return values, nil
}

func diagText(parser *hclparse.Parser, diags hcl.Diagnostics) string {
	var buf strings.Builder
	wr := hcl.NewDiagnosticTextWriter(&buf, parser.Files(), 100, false)
	_ = wr.WriteDiagnostics(diags)
	return buf.String()
}
