// SPDX-License-Identifier: Apache-2.0
// The facade's canonical form (vmxkit/vmxkit.h): CanonicalVmx over vmx::CanonicalPieces, with
// the input it refers to (a string it owns, or a mapped InputFile) kept beside it.
#include <optional>
#include <utility>

#include "vmxkit/core/io.h"
#include "vmxkit/formats/vmx/canonical.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit {

// Heap-held and never moved: `pieces` refers to `owned` or `file`.
struct CanonicalVmx::Impl {
  std::string owned;
  std::optional<InputFile> file;
  std::optional<vmx::CanonicalPieces> pieces;

  std::string_view input() const { return file ? file->bytes() : std::string_view(owned); }
};

CanonicalVmx::CanonicalVmx(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CanonicalVmx::CanonicalVmx(std::string bytes, std::string_view path)
    : impl_(std::make_unique<Impl>()) {
  impl_->owned = std::move(bytes);
  impl_->pieces.emplace(impl_->owned, path);
}

CanonicalVmx CanonicalVmx::read(const std::string& path, bool unread) {
  auto impl = std::make_unique<Impl>();
  const InputFile& file = impl->file.emplace(
      path, kMaxInputBytes, unread ? InputFile::Mapping::on_touch : InputFile::Mapping::populate);
  if (unread && file.mapped()) {
    impl->pieces.emplace(file.bytes(), path, [&file](std::size_t offset, std::span<char> to) {
      file.read_at(offset, to);
    });
  } else {
    impl->pieces.emplace(file.bytes(), path);
  }
  return CanonicalVmx(std::move(impl));
}

CanonicalVmx::~CanonicalVmx() = default;
CanonicalVmx::CanonicalVmx(CanonicalVmx&&) noexcept = default;
CanonicalVmx& CanonicalVmx::operator=(CanonicalVmx&&) noexcept = default;

bool CanonicalVmx::unchanged() const { return impl_->pieces->equals(impl_->input()); }

std::vector<std::string_view> CanonicalVmx::pieces() const {
  std::vector<std::string_view> out;
  impl_->pieces->for_each([&](std::string_view piece) { out.push_back(piece); });
  return out;
}

std::string CanonicalVmx::text() const {
  std::string out;
  out.reserve(impl_->pieces->size());
  impl_->pieces->for_each([&](std::string_view piece) { out += piece; });
  return out;
}

void CanonicalVmx::write_to(int fd, const std::string& name) const {
  write_pieces(fd, pieces(), name);
}

std::string vmx_canonical(std::string_view bytes, std::string_view path) {
  return vmx::canonical_form(bytes, path);
}

}  // namespace vmxkit
