// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/vsphere/json.h"

/// YAML read as the JSON it stands for, the way kubectl turns a manifest into the JSON it sends
/// (sigs.k8s.io/yaml's YAMLToJSON over go-yaml v2), with yaml-cpp as the parser. Every value and
/// key keeps its byte span in the YAML file, so what reads the JSON values reports YAML lines
/// and columns.
namespace vmxkit::yaml {

/// Every document of a YAML stream (`---` separated), each as a JSON value; an empty document
/// is null. Plain scalars are typed as go-yaml v2 types them (YAML 1.1): `~`, `null` and the
/// empty scalar are null; `true`, `yes`, `on`, `y` (and their capitalised forms) and the
/// `false` words are booleans; integers in decimal, `0x` hex, `0o` or leading-zero octal and
/// `0b` binary, with `_` separators, are numbers (written in decimal); floats are numbers;
/// everything else, and every quoted or block scalar, is a string. Throws vmxkit::Error with
/// file:line:col for malformed YAML, a map key that is not a scalar or is given twice, a merge
/// key (`<<`), a tag other than the YAML core ones, `.inf` or `.nan` (JSON has no such number),
/// nesting deeper than 64 levels, a document over 16 MiB, and aliases that expand it past a
/// million values.
std::vector<vsphere::json::Value> parse_documents(const SourceFile& source);

/// How go-yaml v2 would type `text` as a plain scalar: Type::null, boolean, number or string.
vsphere::json::Value::Type plain_scalar_type(std::string_view text);

/// `v` as block YAML (yaml-cpp's emitter), two-space indentation, with a final newline. A
/// string that go-yaml would read as another type (`"TRUE"`, `"512"`) is double-quoted.
std::string write(const vsphere::json::Value& v);

}  // namespace vmxkit::yaml
