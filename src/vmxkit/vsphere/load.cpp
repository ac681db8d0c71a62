// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vsphere/load.h"

#include "vmxkit/vsphere/configspec.h"
#include "vmxkit/vsphere/configspec_xml.h"
#include "vmxkit/vsphere/ovf.h"
#include "vmxkit/vsphere/schema.h"
#include "vmxkit/vsphere/vi_json.h"
#include "vmxkit/vmx/document.h"

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

}  // namespace

std::string_view to_string(Format format) {
  switch (format) {
    case Format::vmx: return "vmx";
    case Format::configspec_xml: return "configspec-xml";
    case Format::soap: return "soap";
    case Format::vi_json: return "vi-json";
    case Format::ovf: return "ovf";
  }
  return "vmx";
}

Format detect_format(std::string_view b) {
  std::size_t i = b.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < b.size() && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) ++i;
  if (i == b.size()) return Format::vmx;
  if (b[i] == '{' || b[i] == '[') return Format::vi_json;
  if (b[i] != '<') return Format::vmx;
  i = skip_prolog(b, i);
  if (b.size() - i < 2 || b[i] != '<') return Format::configspec_xml;  // the XML reader says why
  // The root start tag: its name and the namespaces it declares.
  const std::size_t end = b.find('>', i);
  const std::string_view tag = b.substr(i, end == std::string_view::npos ? b.size() - i : end - i);
  std::string_view name = tag.substr(1, tag.find_first_of(" \t\r\n/>", 1) - 1);
  if (const std::size_t colon = name.find(':'); colon != std::string_view::npos) {
    name.remove_prefix(colon + 1);
  }
  if (name == "Envelope") {
    if (tag.find(kOvfNs) != std::string_view::npos) return Format::ovf;
    return Format::soap;
  }
  return Format::configspec_xml;
}

Loaded load(std::string path, std::string bytes) {
  Loaded out{detect_format(bytes), SourceFile(std::move(path), std::move(bytes)), {}, {}, {}};
  const SourceFile& src = out.source;
  switch (out.format) {
    case Format::vmx: {
      const vmx::Document doc = vmx::Document::parse(std::string(src.bytes()), src.path());
      out.vms.push_back({{}, vmx::to_vm_config(doc)});
      break;
    }
    case Format::configspec_xml:
    case Format::soap: {
      XmlConfigSpec x = read_configspec_xml(src);
      out.vm = x.vm;
      out.vms.push_back({{}, to_vm_config(x.spec)});
      out.diagnostics = validate_configspec(src);
      break;
    }
    case Format::vi_json:
      out.vms.push_back({{}, to_vm_config(read_vi_json(src).spec)});
      break;
    case Format::ovf:
      for (OvfVirtualSystem& vs : read_ovf(src)) {
        out.vms.push_back({std::move(vs.id), std::move(vs.config)});
      }
      break;
  }
  return out;
}

}  // namespace vmxkit::vsphere
