// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vsphere/load.h"

#include "vmxkit/vmx/document.h"
#include "vmxkit/vsphere/configspec.h"
#include "vmxkit/vsphere/configspec_xml.h"
#include "vmxkit/vsphere/ovf.h"
#include "vmxkit/vsphere/schema.h"
#include "vmxkit/vsphere/text_checks.h"
#include "vmxkit/vsphere/vi_json.h"

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

// How much of wide text detect_format() looks at.
constexpr std::size_t kNarrowedUnits = 4096;

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

}  // namespace

std::string_view to_string(Format format) {
  switch (format) {
    case Format::vmx:
      return "vmx";
    case Format::configspec_xml:
      return "configspec-xml";
    case Format::soap:
      return "soap";
    case Format::vi_json:
      return "vi-json";
    case Format::ovf:
      return "ovf";
  }
  return "vmx";
}

Format detect_format(std::string_view bytes) {
  // UTF-16 and UTF-32 text is told by its ASCII characters; load() then refuses it.
  const WideEncoding wide = detect_wide_encoding(bytes);
  const std::string narrowed =
      wide == WideEncoding::none ? std::string() : narrow_ascii(bytes, wide, kNarrowedUnits);
  const std::string_view b = wide == WideEncoding::none ? bytes : std::string_view(narrowed);
  std::size_t i = b.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < b.size() && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) ++i;
  if (i == b.size()) return Format::vmx;
  if (b[i] == '{' || b[i] == '[') return Format::vi_json;
  if (is_json_scalar(b.substr(i))) return Format::vi_json;  // the JSON reader says why not
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
  Loaded out{detect_format(bytes), SourceFile(std::move(path), std::move(bytes)), {}, {}, {}, {}};
  const SourceFile& src = out.source;
  refuse_wide_encoding(src);
  switch (out.format) {
    case Format::vmx: {
      const vmx::Document doc = vmx::Document::parse(std::string(src.bytes()), src.path());
      out.vms.push_back({{}, vmx::to_vm_config(doc)});
      out.malformed = doc.problems();
      break;
    }
    case Format::configspec_xml:
    case Format::soap: {
      XmlConfigSpec x = read_configspec_xml(src);
      out.vm = x.vm;
      out.vms.push_back({{}, to_vm_config(x.spec)});
      out.schema_problems = validate_configspec(src);
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
