// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/load.h"

#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/configspec_xml.h"
#include "vmxkit/formats/vsphere/govc_json.h"
#include "vmxkit/formats/vsphere/ovf.h"
#include "vmxkit/formats/vsphere/schema.h"
#include "vmxkit/formats/vsphere/text_checks.h"
#include "vmxkit/formats/vsphere/vi_json.h"

namespace vmxkit::vsphere {
namespace {

constexpr std::string_view kOvfNs = "http://schemas.dmtf.org/ovf/envelope/";

std::size_t skip_prolog(std::string_view b, std::size_t i) {
  // Skips whitespace, the XML declaration, comments and processing instructions.
  for (;;) {
    while (i < b.size() && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) ++i;
    if (b.compare(i, 4, "<!--") == 0) {
      const std::size_t end = b.find("-->", i + 4);
      if (end == std::string_view::npos) return b.size();
      i = end + 3;
    } else if (b.compare(i, 2, "<?") == 0) {
      const std::size_t end = b.find("?>", i + 2);
      if (end == std::string_view::npos) return b.size();
      i = end + 2;
    } else {
      return i;
    }
  }
}

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The text is one JSON number, string or literal and nothing else (`42`, `"x"`, `true`): no
// `.vmx` line is, since a setting needs `=` outside quotes.
bool is_json_scalar(std::string_view b) {
  std::size_t i = 0;
  if (b.empty()) return false;
  if (b[0] == '"') {
    for (i = 1; i < b.size() && b[i] != '"'; ++i) {
      if (b[i] == '\n') return false;
      if (b[i] == '\\' && ++i == b.size()) return false;
    }
    if (i >= b.size()) return false;
    ++i;
  } else if (b[0] == '-' || (b[0] >= '0' && b[0] <= '9')) {
    i = 1;
    while (i < b.size() && ((b[i] >= '0' && b[i] <= '9') || b[i] == '.' || b[i] == 'e' ||
                            b[i] == 'E' || b[i] == '+' || b[i] == '-')) {
      ++i;
    }
  } else {
    for (const std::string_view word : {"true", "false", "null"}) {
      if (b.substr(0, word.size()) == word) i = word.size();
    }
    if (i == 0) return false;
  }
  while (i < b.size() && is_ws(b[i])) ++i;
  return i == b.size();
}

// The keys of a JSON object's members, for the object whose `{` is at `b[i]`: no more than
// `limit` bytes are looked at, and nothing is decoded (the keys that tell govc's output from
// VI/JSON are plain ASCII). Stops at the object's end; a malformed document gives what was seen,
// and the reader says what is wrong.
std::vector<std::string_view> object_keys(std::string_view b, std::size_t i) {
  std::vector<std::string_view> keys;
  int depth = 0;
  bool expect_key = false;
  for (; i < b.size(); ++i) {
    const char c = b[i];
    if (c == '"') {
      const std::size_t start = i + 1;
      for (++i; i < b.size() && b[i] != '"'; ++i) {
        if (b[i] == '\\') ++i;
      }
      if (depth == 1 && expect_key) keys.push_back(b.substr(start, i - start));
      expect_key = false;
    } else if (c == '{' || c == '[') {
      ++depth;
      expect_key = c == '{' && depth == 1;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) break;
    } else if (c == ',' && depth == 1) {
      expect_key = true;
    }
  }
  return keys;
}

// A key as govc 0.24 writes it (the Go field name, `VirtualMachines`) or as govc 0.32 and later
// do (camelCase, `virtualMachines`).
bool has_key(const std::vector<std::string_view>& keys, std::string_view go_name) {
  for (const std::string_view k : keys) {
    if (k.size() == go_name.size() && k.substr(1) == go_name.substr(1) &&
        (k[0] == go_name[0] || k[0] == static_cast<char>(go_name[0] - 'A' + 'a'))) {
      return true;
    }
  }
  return false;
}

bool is_govc_json(std::string_view b, std::size_t i) {
  if (b[i] == '[') {
    std::size_t j = i + 1;
    while (j < b.size() && is_ws(b[j])) ++j;
    if (j == b.size() || b[j] != '{') return false;
    const auto keys = object_keys(b, j);
    return has_key(keys, "Name") && has_key(keys, "Val");
  }
  const auto keys = object_keys(b, i);
  if (has_key(keys, "_typeName")) return false;
  return has_key(keys, "VirtualMachines") || (has_key(keys, "ChangeSet") && has_key(keys, "Obj"));
}

}  // namespace

std::size_t content_start(std::string_view bytes) {
  std::size_t i = bytes.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < bytes.size() &&
         (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\r' || bytes[i] == '\n')) {
    ++i;
  }
  return i;
}

namespace {

// The root element's local name and start tag of the XML at `b[i]` (a `<`), past its prolog;
// empty when there is none.
std::pair<std::string_view, std::string_view> xml_root(std::string_view b, std::size_t i) {
  i = skip_prolog(b, i);
  if (b.size() - i < 2 || b[i] != '<') return {};
  const std::size_t end = b.find('>', i);
  const std::string_view tag = b.substr(i, end == std::string_view::npos ? b.size() - i : end - i);
  std::string_view name = tag.substr(1, tag.find_first_of(" \t\r\n/>", 1) - 1);
  if (const std::size_t colon = name.find(':'); colon != std::string_view::npos) {
    name.remove_prefix(colon + 1);
  }
  return {name, tag};
}

bool is_json_start(std::string_view b, std::size_t i) {
  return i < b.size() && (b[i] == '{' || b[i] == '[');
}

}  // namespace

bool recognise_govc_json(std::string_view b, std::size_t i) {
  return is_json_start(b, i) && is_govc_json(b, i);
}

bool recognise_vi_json(std::string_view b, std::size_t i) {
  // A lone JSON scalar is VI/JSON too: the JSON reader says why it is not a ConfigSpec.
  return is_json_start(b, i) || (i < b.size() && is_json_scalar(b.substr(i)));
}

bool recognise_ovf(std::string_view b, std::size_t i) {
  if (i >= b.size() || b[i] != '<') return false;
  const auto [name, tag] = xml_root(b, i);
  return name == "Envelope" && tag.find(kOvfNs) != std::string_view::npos;
}

bool recognise_soap(std::string_view b, std::size_t i) {
  if (i >= b.size() || b[i] != '<') return false;
  return xml_root(b, i).first == "Envelope";
}

bool recognise_xml(std::string_view b, std::size_t i) { return i < b.size() && b[i] == '<'; }

Loaded load(std::string path, std::string bytes) {
  const formats::Format& format = formats::recognise_vm_input(bytes);
  Loaded out{&format, SourceFile(std::move(path), std::move(bytes)), {}, {}, {}, {}};
  refuse_wide_encoding(out.source);
  format.read(out);
  return out;
}

void read_vmx_input(Loaded& into) {
  const SourceFile& src = into.source;
  const vmx::Document doc = vmx::Document::parse(std::string(src.bytes()), src.path());
  into.vms.push_back({{}, {}, vmx::to_vm_config(doc), {}, {}, {}});
  into.malformed = doc.problems();
}

void read_vim25_input(Loaded& into) {
  const SourceFile& src = into.source;
  XmlDocument x = read_vim25_xml(src);
  if (x.kind == XmlDocumentKind::reconfigure) into.vm = x.vms.front().moref;
  for (XmlVm& vm : x.vms) {
    into.vms.push_back(
        {std::move(vm.name), std::move(vm.moref), to_vm_config(vm.spec, &src), {}, {}, {}});
  }
  // The schema is vmxkit's ConfigSpec subset: what vSphere sends back is not checked against
  // it (a ConfigInfo has far more than vmxkit models).
  if (x.kind == XmlDocumentKind::configspec || x.kind == XmlDocumentKind::reconfigure) {
    into.schema_problems = validate_configspec(src);
  }
}

void read_vi_json_input(Loaded& into) {
  const SourceFile& src = into.source;
  JsonConfigSpec j = read_vi_json(src);
  std::string name =
      j.type_name == "VirtualMachineConfigInfo" && j.spec.name ? *j.spec.name : std::string();
  into.vms.push_back({std::move(name), {}, to_vm_config(j.spec, &src), {}, {}, {}});
}

void read_ovf_input(Loaded& into) {
  for (OvfVirtualSystem& vs : read_ovf(into.source)) {
    into.vms.push_back({std::move(vs.id), {}, std::move(vs.config), std::move(vs.unread), {}, {}});
  }
}

void read_govc_input(Loaded& into) {
  for (GovcVm& vm : read_govc_json(into.source).vms) {
    into.vms.push_back(
        {std::move(vm.name), std::move(vm.moref), to_vm_config(vm.spec, &into.source), {}, {}, {}});
  }
}

}  // namespace vmxkit::vsphere
