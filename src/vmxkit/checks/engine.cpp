// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/checks/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <unordered_map>
#include <utility>

#include "vmxkit/checks/all.h"
#include "vmxkit/checks/context.h"
#include "vmxkit/checks/parse_problems.h"
#include "vmxkit/core/text_edit.h"
#include "vmxkit/core/wide_encoding.h"
#include "vmxkit/devices/catalog.h"
#include "vmxkit/formats/formats.h"
#include "vmxkit/formats/terraform.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/formats/vmx/edit.h"
#include "vmxkit/formats/vsphere/load.h"

namespace vmxkit::checks {
namespace {

struct Suppression {
  std::size_t begin = 0;  ///< the id in the comment
  std::size_t end = 0;
  std::uint32_t line = 0;  ///< the line it applies to; 0 for the whole file
  std::string id;
  const vmx::Line* comment_line = nullptr;  ///< set when the comment is a line of its own
  std::size_t ids_on_line = 0;
  bool used = false;
};

bool is_id_char(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// Parses `vmxkit: disable=ID,ID` / `vmxkit: disable-file=ID` in a comment that starts at
// `comment_begin` and applies (for `disable=`) to `target_line`.
void parse_suppressions(const vmx::Document& doc, std::size_t comment_begin, std::size_t end,
                        std::uint32_t target_line, const vmx::Line* own_line,
                        std::vector<Suppression>& out) {
  const std::string_view text = doc.bytes().substr(comment_begin, end - comment_begin);
  const std::size_t tag = text.find(kSuppressionTag);
  if (tag == std::string_view::npos) return;
  std::size_t i = tag + kSuppressionTag.size();
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  std::uint32_t line = target_line;
  if (text.substr(i).starts_with("disable-file=")) {
    i += 13;
    line = 0;
  } else if (text.substr(i).starts_with("disable=")) {
    i += 8;
  } else {
    return;
  }
  const std::size_t first = out.size();
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ',' || text[i] == ' ')) ++i;
    const std::size_t start = i;
    while (i < text.size() && is_id_char(text[i])) ++i;
    if (i == start) break;
    Suppression s;
    s.begin = comment_begin + start;
    s.end = comment_begin + i;
    s.line = line;
    s.id = std::string(text.substr(start, i - start));
    s.comment_line = own_line;
    out.push_back(std::move(s));
  }
  for (std::size_t k = first; k < out.size(); ++k) out[k].ids_on_line = out.size() - first;
}

std::vector<Suppression> find_suppressions(const vmx::Document& doc) {
  std::vector<Suppression> out;
  const auto lines = doc.lines();
  std::size_t next_code = 0;  // the first line after a comment that is not blank or a comment
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const vmx::Line& line = lines[i];
    const auto number = static_cast<std::uint32_t>(i + 1);
    if (line.kind == vmx::LineKind::entry && line.comment_begin < line.end) {
      parse_suppressions(doc, line.comment_begin, line.end, number, nullptr, out);
    } else if (line.kind == vmx::LineKind::comment) {
      // Applies to the next line that is not blank or a comment; every comment of one block
      // shares it, so the block is walked once.
      if (next_code <= i) {
        next_code = i + 1;
        while (next_code < lines.size() && (lines[next_code].kind == vmx::LineKind::blank ||
                                            lines[next_code].kind == vmx::LineKind::comment)) {
          ++next_code;
        }
      }
      const std::uint32_t target =
          next_code < lines.size() ? static_cast<std::uint32_t>(next_code + 1) : 0xFFFFFFFFu;
      parse_suppressions(doc, line.comment_begin, line.end, target, &line, out);
    }
  }
  return out;
}

// The suppressions by rule id and line (0: the whole file), for one lookup per diagnostic.
struct SuppressionKey {
  std::string_view id;
  std::uint32_t line;
  bool operator==(const SuppressionKey&) const = default;
};
struct SuppressionKeyHash {
  std::size_t operator()(const SuppressionKey& k) const {
    return std::hash<std::string_view>()(k.id) ^ (std::size_t{k.line} * 0x9E3779B97F4A7C15ULL);
  }
};

void apply_suppressions(const vmx::Document& doc, std::vector<Diagnostic>& diagnostics) {
  std::vector<Suppression> sups = find_suppressions(doc);
  if (sups.empty()) return;
  std::unordered_map<SuppressionKey, std::vector<std::size_t>, SuppressionKeyHash> index;
  for (std::size_t i = 0; i < sups.size(); ++i) index[{sups[i].id, sups[i].line}].push_back(i);
  std::erase_if(diagnostics, [&](const Diagnostic& d) {
    bool suppressed = false;
    const std::uint32_t line = doc.location(d.begin).line;
    for (const std::uint32_t l : {line, 0u}) {
      const auto it = index.find({d.rule_id, l});
      if (it == index.end()) continue;
      for (const std::size_t i : it->second) sups[i].used = true;
      suppressed = true;
    }
    return suppressed;
  });
  const bool unused_suppressed = std::any_of(sups.begin(), sups.end(), [](const Suppression& s) {
    return s.line == 0 && s.id == kVMX009.id;
  });
  if (unused_suppressed) return;
  for (const Suppression& s : sups) {
    if (s.used) continue;
    Diagnostic& d = diagnostics.emplace_back();
    d.rule_id = kVMX009.id;
    d.severity = kVMX009.severity;
    d.begin = s.begin;
    d.end = s.end;
    d.message = find_check(s.id) == nullptr
                    ? fmt::format("suppression of unknown rule '{}'", s.id)
                    : fmt::format("suppression of {} suppresses nothing", s.id);
    if (s.comment_line != nullptr && s.ids_on_line == 1) {
      d.fix = Fix{"Remove the suppression comment",
                  FixSafety::safe,
                  {vmx::remove_line(doc, *s.comment_line)}};
    }
  }
}

// Sorted by position, then rule id, ties in report order. Rules report in file order, so the
// list is often sorted already; otherwise an index is sorted and the diagnostics are permuted
// in place, so no second array of diagnostics is ever held.
void sort_diagnostics(std::vector<Diagnostic>& diagnostics) {
  const auto before = [](const Diagnostic& a, const Diagnostic& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    return a.rule_id < b.rule_id;
  };
  if (std::is_sorted(diagnostics.begin(), diagnostics.end(), before)) return;
  std::vector<std::uint32_t> order(diagnostics.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return before(diagnostics[a], diagnostics[b]);
  });
  // Position i takes the diagnostic at order[i]; follow each cycle once.
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i] == i) continue;
    Diagnostic held = std::move(diagnostics[i]);
    std::size_t at = i;
    while (order[at] != i) {
      const std::size_t from = order[at];
      diagnostics[at] = std::move(diagnostics[from]);
      order[at] = static_cast<std::uint32_t>(at);
      at = from;
    }
    diagnostics[at] = std::move(held);
    order[at] = static_cast<std::uint32_t>(at);
  }
}

void run_rules(const Context& ctx, const LintOptions& options, Sink& sink) {
  for (const Check* rule : all_checks()) {
    if (rule->status == CheckStatus::removed || rule->check == nullptr) continue;
    if (rule->needs_host && options.host == nullptr) continue;
    rule->check(ctx, sink);
  }
}

// ConfigSpec XML, SOAP, VI/JSON and OVF: the same rules over the neutral model, with positions
// pointing at the elements; no syntax rules and no fixes (those edit .vmx text).
void lint_spec(LintResult& result, std::string bytes, const LintOptions& options,
               const pci::Catalog& catalog) {
  vsphere::Loaded loaded = vsphere::load(result.path, std::move(bytes));
  result.format = loaded.format;
  result.diagnostics = schema_diagnostics(loaded.schema_problems);
  const bool terraform = loaded.format != nullptr && loaded.format->name == "terraform-json";
  for (vsphere::LoadedVm& vm : loaded.vms) {
    // A pci_device_id is a host address only: with a host, the device there gives its ids.
    if (terraform && options.host != nullptr) {
      terraform::add_host_ids(vm.config, vm.notes, *options.host);
    }
    const Context ctx(result.path, loaded.source.bytes(), nullptr, vm.config, catalog,
                      options.host);
    Sink sink;
    run_rules(ctx, options, sink);
    std::vector<Diagnostic> found = std::move(sink.diagnostics());
    for (Diagnostic& d : unread_diagnostics(vm.unread)) found.push_back(std::move(d));
    defer_unknown(found, vm.unknown);
    for (Diagnostic& d : form_note_diagnostics(vm.notes)) found.push_back(std::move(d));
    for (Diagnostic& d : found) {
      if (loaded.vms.size() > 1) d.message = fmt::format("{}: {}", vm.name, d.message);
      result.diagnostics.push_back(std::move(d));
    }
  }
  result.bytes = std::string(loaded.source.bytes());
}

// Lints bytes as the format given: fix decides it once, from the original file, so an edit can
// never turn a .vmx into something read as XML on the next pass.
LintResult lint_as(std::string path, std::string bytes, const LintOptions& options, bool vmx) {
  const pci::Catalog& catalog =
      options.catalog != nullptr ? *options.catalog : pci::Catalog::builtin();
  LintResult result;
  result.path = std::move(path);
  if (!vmx) {
    result.lines = LineIndex(bytes);
    lint_spec(result, std::move(bytes), options, catalog);
    sort_diagnostics(result.diagnostics);
    return result;
  }
  result.format = formats::find("vmx");
  // The bytes are held once: by the document while the rules run, then by the result. The model
  // and the document's lines are freed before the diagnostics are sorted.
  vmx::Document doc = vmx::Document::parse(std::move(bytes), result.path);
  result.lines = doc.line_index();
  {
    const VmConfig config = vmx::to_vm_config(doc);
    const Context ctx(result.path, doc.bytes(), &doc, config, catalog, options.host);
    Sink sink;
    run_rules(ctx, options, sink);
    result.diagnostics = std::move(sink.diagnostics());
  }
  apply_suppressions(doc, result.diagnostics);
  result.bytes = std::move(doc).take_bytes();
  sort_diagnostics(result.diagnostics);
  return result;
}

}  // namespace

LintResult lint(std::string path, std::string bytes, const LintOptions& options) {
  const bool vmx = formats::recognise_vm_input(bytes).name == "vmx";
  return lint_as(std::move(path), std::move(bytes), options, vmx);
}

LintResult lint_loaded_vm(std::string path, const vsphere::Loaded& loaded, std::size_t vm,
                          const LintOptions& options) {
  const pci::Catalog& catalog =
      options.catalog != nullptr ? *options.catalog : pci::Catalog::builtin();
  LintResult result;
  result.path = std::move(path);
  result.format = loaded.format;
  result.bytes = std::string(loaded.source.bytes());
  result.lines = LineIndex(result.bytes);
  const Context ctx(result.path, loaded.source.bytes(), nullptr, loaded.vms.at(vm).config, catalog,
                    options.host);
  Sink sink;
  run_rules(ctx, options, sink);
  result.diagnostics = std::move(sink.diagnostics());
  sort_diagnostics(result.diagnostics);
  return result;
}

namespace {

// The spans of the edits taken in one fix pass, as disjoint closed intervals by start. The
// edits of one fix may share an offset (they were made together), but those of two fixes must
// not even touch: two insertions at one offset (say `"256"` and `""` into one empty value)
// would both apply and corrupt the line. A fix that touches is taken up by a later pass, on
// the re-linted text. O(log n) per edit, so fixing a file with 100,000 findings stays linear.
class ClaimedSpans {
 public:
  bool touches(const std::vector<TextEdit>& edits) const {
    for (const TextEdit& e : edits) {
      auto it = spans_.upper_bound(e.end);  // first span starting after the edit
      if (it != spans_.begin() && std::prev(it)->second >= e.begin) return true;
    }
    return false;
  }

  void claim(const std::vector<TextEdit>& edits) {
    for (const TextEdit& e : edits) {
      std::size_t begin = e.begin;
      std::size_t end = e.end;
      auto it = spans_.upper_bound(end);
      while (it != spans_.begin() && std::prev(it)->second >= begin) {
        const auto prev = std::prev(it);
        begin = std::min(begin, prev->first);
        end = std::max(end, prev->second);
        it = spans_.erase(prev);
      }
      spans_.emplace(begin, end);
    }
  }

 private:
  std::map<std::size_t, std::size_t> spans_;  // begin -> end
};

// The places of `edits` (as apply_edits takes them) before and after they are applied.
std::vector<EditPlace> edit_places(std::vector<TextEdit> edits) {
  std::stable_sort(edits.begin(), edits.end(),
                   [](const TextEdit& a, const TextEdit& b) { return a.begin < b.begin; });
  std::vector<EditPlace> places;
  places.reserve(edits.size());
  std::size_t new_pos = 0;  // where the previous edit's replacement ends, after the edits
  std::size_t old_pos = 0;  // where the previous edit ends, before them
  for (const TextEdit& e : edits) {
    const std::size_t new_begin = new_pos + (e.begin - old_pos);
    places.push_back({e.begin, e.end, new_begin, new_begin + e.replacement.size()});
    new_pos = new_begin + e.replacement.size();
    old_pos = e.end;
  }
  return places;
}

// `offset` after one pass's edits, before them: in a replacement, the start (or, for the end
// of a span, the end) of what it replaced.
std::size_t before_pass(const std::vector<EditPlace>& places, std::size_t offset, bool span_end) {
  auto it = std::upper_bound(places.begin(), places.end(), offset,
                             [](std::size_t o, const EditPlace& p) { return o < p.new_begin; });
  if (it == places.begin()) return offset;
  const EditPlace& p = *std::prev(it);
  if (offset < p.new_end) return span_end ? p.old_end : p.old_begin;
  return p.old_end + (offset - p.new_end);
}

}  // namespace

FixResult fix(const std::string& path, std::string bytes, const LintOptions& options, bool unsafe) {
  constexpr int kMaxPasses = 10;
  FixResult out;
  // Only .vmx text is edited; vSphere documents are linted, never fixed.
  const bool vmx = formats::recognise_vm_input(bytes).name == "vmx";
  // Each pass lints the current bytes once (the result keeps them) and applies every fix that
  // does not touch another; a pass takes all fixes of a kind at once (one VMX005 fix removes
  // every duplicate of a key), so the number of passes does not grow with the findings.
  LintResult r = lint_as(path, std::move(bytes), options, vmx);
  for (int pass = 0; vmx && pass < kMaxPasses; ++pass) {
    std::vector<TextEdit> accepted;
    ClaimedSpans claimed;
    std::vector<std::string_view> ids;
    for (const Diagnostic& d : r.diagnostics) {
      if (!d.fix || d.fix->edits.empty()) continue;
      if (d.fix->safety == FixSafety::display_only) continue;
      if (d.fix->safety == FixSafety::unsafe && !unsafe) continue;
      if (!edits_are_disjoint(d.fix->edits) || claimed.touches(d.fix->edits)) continue;
      claimed.claim(d.fix->edits);
      accepted.insert(accepted.end(), d.fix->edits.begin(), d.fix->edits.end());
      ids.push_back(d.rule_id);
    }
    if (accepted.empty()) break;
    std::string next = apply_edits(r.bytes, accepted);
    if (next == r.bytes) break;
    out.passes.push_back(edit_places(accepted));
    // A pass whose result would read as UTF-16 or UTF-32 (quoting a value in NUL-laden bytes
    // can do that) is not taken: fix never turns a file it read into one every reader refuses.
    if (detect_wide_encoding(next) != WideEncoding::none) break;
    accepted = {};
    out.fixes_applied += ids.size();
    out.fixed_rules.insert(out.fixed_rules.end(), ids.begin(), ids.end());
    r = {};  // frees the last pass's diagnostics and bytes before the next lint
    r = lint_as(path, std::move(next), options, vmx);
  }
  out.bytes = r.bytes;
  out.remaining = std::move(r);
  return out;
}

Diagnostic in_original(const FixResult& result, std::string_view original, Diagnostic d) {
  return in_original(result.passes, original, std::move(d));
}

Diagnostic in_original(const std::vector<std::vector<EditPlace>>& passes, std::string_view original,
                       Diagnostic d) {
  const auto map = [&](std::size_t offset, bool span_end) {
    // Undo the passes last to first. NOLINTNEXTLINE(modernize-loop-convert)
    for (auto pass = passes.rbegin(); pass != passes.rend(); ++pass) {
      offset = before_pass(*pass, offset, span_end);
    }
    offset = std::min(offset, original.size());
    if (offset == original.size() && offset > 0 && original.back() == '\n') --offset;
    return offset;
  };
  d.begin = map(d.begin, false);
  d.end = std::max(d.begin, map(d.end, true));
  for (Note& note : d.notes) {
    note.begin = map(note.begin, false);
    note.end = std::max(note.begin, map(note.end, true));
  }
  return d;
}

}  // namespace vmxkit::checks
