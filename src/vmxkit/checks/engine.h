// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "vmxkit/core/diagnostic.h"
#include "vmxkit/core/source_file.h"

namespace vmxkit::pci {
class Catalog;
class Host;
}  // namespace vmxkit::pci
namespace vmxkit::vsphere {
struct Loaded;
}  // namespace vmxkit::vsphere
namespace vmxkit::formats {
struct Format;
}  // namespace vmxkit::formats

/// The rule engine: runs the catalogue over one file, applies in-file suppressions, and fixes.
namespace vmxkit::checks {

struct LintOptions {
  const pci::Host* host = nullptr;        ///< enables the TOPO rules
  const pci::Catalog* catalog = nullptr;  ///< nullptr: the built-in catalogue
};

struct LintResult {
  std::string path;
  std::string bytes;
  /// The format table's row of what was read (formats/formats.h): `.vmx`, a vSphere document,
  /// a Terraform plan or state, a VM class...
  const formats::Format* format = nullptr;
  std::vector<Diagnostic> diagnostics;  ///< sorted by position, then rule id
  LineIndex lines;

  Location location(std::size_t offset) const { return lines.location(offset); }
};

/// Lints one file's bytes. A `.vmx` never fails (malformed lines are diagnostics); a vSphere
/// document that cannot be read as its format (malformed or unsafe XML, bad JSON) throws
/// vmxkit::Error with file:line:col.
LintResult lint(std::string path, std::string bytes, const LintOptions& options);

/// Lints VM `vm` of a document already loaded (vsphere::load), as `path`, with its own host:
/// a live VM's ConfigInfo from a RetrievePropertiesEx answer holding several VMs, each linted
/// against the host it runs on. Positions point into the document.
LintResult lint_loaded_vm(std::string path, const vsphere::Loaded& loaded, std::size_t vm,
                          const LintOptions& options);

/// The suppression comment forms: `# vmxkit: disable=ID[,ID...]` on the line before (or at the
/// end of the line) and `# vmxkit: disable-file=ID[,ID...]` anywhere.
inline constexpr std::string_view kSuppressionTag = "vmxkit:";

struct FixResult {
  std::string bytes;  ///< the fixed file
  std::size_t fixes_applied = 0;
  std::vector<std::string_view> fixed_rules;  ///< ids of the fixes applied, in order
  LintResult remaining;                       ///< lint of the fixed file
  /// Each pass's edits in the order of their places, to map places in `bytes` back to the
  /// bytes fix was given (in_original).
  std::vector<std::vector<EditPlace>> passes;
};

/// `d`, a finding in the fixed file (`result.remaining`), with its place and its notes' places
/// in `original`, the bytes fix was given: what `fix --diff` reports, as the file on disk is
/// the original. A place in text the fixes wrote is the place of what that text replaced (or
/// where it was inserted); one past the end of a file that ends with a line break is that
/// line break, so no finding is on a line the file does not have.
Diagnostic in_original(const FixResult& result, std::string_view original, Diagnostic d);
/// in_original() of the passes alone (FixResult::passes).
Diagnostic in_original(const std::vector<std::vector<EditPlace>>& passes, std::string_view original,
                       Diagnostic d);

/// Applies safe fixes (and unsafe ones when `unsafe`), never display-only ones. Picks fixes whose
/// edits do not overlap, applies them, lints again, and repeats until nothing changes (at most
/// 10 passes). Bytes outside the edits never change. The format is decided once, from `bytes`:
/// a .vmx stays a .vmx whatever the edits make its first line; vSphere documents are not fixed.
FixResult fix(const std::string& path, std::string bytes, const LintOptions& options, bool unsafe);

}  // namespace vmxkit::checks
