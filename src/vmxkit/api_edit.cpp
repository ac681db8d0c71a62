// SPDX-License-Identifier: Apache-2.0
// The facade's `.vmx` edits and its one write path (vmxkit/vmxkit.h): VmxDocument over the
// lossless vmx::Document, vmx_set()/vmx_unset() over the one-pass byte edits, and the file
// functions over core/io.h's OutputLock, as the command line's `set -i` uses them.
#include <fmt/format.h>

#include <utility>

#include "vmxkit/checks/parse_problems.h"
#include "vmxkit/core/io.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/formats/vmx/edit.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit {

// --- .vmx documents

struct VmxDocument::Impl {
  vmx::Document doc;
};

VmxDocument VmxDocument::parse(std::string bytes, std::string path) {
  VmxDocument out;
  out.impl_ =
      std::make_shared<const Impl>(Impl{vmx::Document::parse(std::move(bytes), std::move(path))});
  return out;
}

const std::string& VmxDocument::path() const { return impl_->doc.path(); }

std::string_view VmxDocument::bytes() const { return impl_->doc.bytes(); }

std::optional<std::string> VmxDocument::get(std::string_view key) const {
  return impl_->doc.get(key);
}

std::vector<VmxEntry> VmxDocument::entries() const {
  const vmx::Document& doc = impl_->doc;
  std::vector<VmxEntry> out;
  for (const vmx::Line& line : doc.lines()) {
    if (line.is_entry()) out.push_back(VmxEntry{std::string(doc.key(line)), doc.value(line)});
  }
  return out;
}

std::optional<std::string> VmxDocument::get_raw(std::string_view key) const {
  const vmx::Line* line = impl_->doc.find(key);
  if (line == nullptr) return std::nullopt;
  return std::string(impl_->doc.raw_value(*line));
}

std::vector<Diagnostic> VmxDocument::diagnostics() const {
  return checks::line_diagnostics(impl_->doc.problems());
}

std::vector<VmxProblem> VmxDocument::problems() const {
  const vmx::Document& doc = impl_->doc;
  std::vector<VmxProblem> out;
  for (vmx::LineProblem& p : doc.problems()) {
    out.push_back(VmxProblem{std::move(p.message), p.begin, doc.location(p.begin)});
  }
  return out;
}

std::string vmx_set(std::string_view bytes, std::string_view key, std::string_view value) {
  return vmx::set_bytes(bytes, key, value);
}

std::string vmx_unset(std::string_view bytes, std::string_view key, bool* removed) {
  return vmx::unset_bytes(bytes, key, removed);
}

bool vmx_has_problems(std::string_view bytes, std::string_view path) {
  return vmx::has_malformed_line(bytes, path);
}

// --- files

std::string read_file_bytes(const std::string& path) { return read_file(path); }

std::string vm_lock(const std::string& vmx_path) { return vmx_lock_present(vmx_path); }

bool write_file_bytes(const std::string& path, std::string_view bytes,
                      const WriteOptions& options) {
  OutputLock lock(path, LockOptions{options.ignore_vm_lock, options.override_hint});
  // Whether the target is the file read is decided here, under its lock, once: a test made
  // before (two stats) could see another writer's rename between them and overwrite its edit.
  if (options.edit_of && lock.holds(options.edit_of->path)) {
    const std::string current = lock.read();
    if (current != options.edit_of->bytes) {
      throw Error(path, fmt::format("changed on disk since {} was read; read it again and redo "
                                    "the edit",
                                    options.edit_of->what));
    }
    if (current == bytes) return false;
  }
  lock.replace(bytes);
  return true;
}

}  // namespace vmxkit
