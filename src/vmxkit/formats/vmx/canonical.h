// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "vmxkit/formats/vmx/document.h"

namespace vmxkit::vmx {

/// The canonical form of a document, as VMware's writer would put it (DictLL_MarshalLine):
/// every entry is `key = "value"` with the value re-encoded in VMware's escape set (uppercase
/// hex), so what VMware reads is unchanged; keys keep their spelling and order; comment lines
/// and blank lines stay, without leading or trailing whitespace; a trailing comment stays after
/// the value; every line ends with the document's dominant line ending; a BOM is dropped
/// (unless the text would then start with the bytes of one, which a reader would skip).
/// The canonical form of a canonical document is itself.
///
/// Throws vmxkit::Error (file:line:col) when the document has a malformed line: there is no
/// canonical form of a line VMware cannot read, and guessing would change what the user meant.
std::string canonical_form(const Document& doc);

/// The same for a document's bytes, in one pass over its lines without building a Document:
/// the result is reserved once and appended to. `path` names the file in the error.
std::string canonical_form(std::string_view bytes, std::string_view path);

/// canonical_form(bytes, path) as pieces, for writing a large document out without building
/// its copy: runs of lines already canonical are spans of `bytes` (which must outlive this),
/// only rebuilt lines are held. Their concatenation is canonical_form(bytes, path). A large
/// input is done in two halves on two threads. Throws as canonical_form() does (the first
/// malformed line, with its number in the whole text), before anything can be written.
class CanonicalPieces {
 public:
  /// Copies the input's bytes [offset, offset + to.size()) into `to` (InputFile::read_at).
  using ReadAt = std::function<void(std::size_t offset, std::span<char> to)>;
  static constexpr std::size_t kChunkBytes = std::size_t{256} << 10;

  CanonicalPieces(std::string_view bytes, std::string_view path);
  /// The same, reading the lines through `read`, `chunk` bytes at a time into a buffer it
  /// reuses, instead of from `bytes` (which the pieces still refer to, and which must hold the
  /// same bytes): the pages of a mapped input are then never touched by this process unless a
  /// piece of it is written from them (to /dev/null, never). Where the first touch of a mapped
  /// page is expensive (a virtual machine: up to 3 us a page, 48 ms for 64 MiB, three times what
  /// the scan costs), the kernel's copy into a small buffer that stays in the cache is cheaper.
  CanonicalPieces(std::string_view bytes, std::string_view path, const ReadAt& read,
                  std::size_t chunk = kChunkBytes);
  /// Calls `f(std::string_view)` with each piece in order while it returns true (or void).
  template <class F>
  void for_each(F&& f) const {
    if (bom_ && !call(f, bom())) return;
    for (const Piece& piece : pieces_) {
      if (!call(f, view(piece))) return;
    }
  }
  /// The length of the canonical form.
  std::size_t size() const;
  /// Whether the canonical form is `text` (with the input: whether the document is canonical).
  bool equals(std::string_view text) const;

 private:
  struct Piece {
    std::uint32_t source;  ///< 0: a span of the input, else of rebuilt_[source - 1]
    std::size_t offset, size;
  };
  struct Builder;
  struct Source;
  CanonicalPieces(std::string_view bytes, std::string_view path, const ReadAt* read,
                  std::size_t chunk);
  void build_halves(const Source& src, std::string_view path, std::size_t start, std::size_t split,
                    LineEnding ending);
  template <class F>
  static bool call(F& f, std::string_view piece) {
    if constexpr (std::is_void_v<decltype(f(piece))>) {
      f(piece);
      return true;
    } else {
      return f(piece);
    }
  }
  std::string_view view(const Piece& piece) const;
  static std::string_view bom();

  std::string_view input_;
  std::vector<std::string> rebuilt_;  ///< the rebuilt lines: one buffer per thread that built
  std::vector<Piece> pieces_;
  bool bom_ = false;
};

namespace detail {
/// canonical_form() rebuilding every line, without copying runs of lines that are already
/// canonical (LineScanner::skip_canonical): the reference the tests and the fuzzer compare the
/// fast path with.
std::string canonical_form_each_line(std::string_view bytes, std::string_view path);
}  // namespace detail

}  // namespace vmxkit::vmx
