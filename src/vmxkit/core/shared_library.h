// SPDX-License-Identifier: Apache-2.0
// A shared object loaded when first needed (dlopen) instead of linked, so that a command that
// does not use it does not pay for loading and relocating it at start-up: libxml2, libcurl and
// Graphviz are loaded this way.
#pragma once

#include <string>
#include <string_view>

namespace vmxkit {

/// What a library is needed for and how to install it, for the error when it cannot be loaded:
/// "<needed_by>, which cannot be loaded (<why>); <install>".
struct LibraryNeed {
  std::string_view needed_by;  ///< "the vSphere client needs libcurl"
  std::string_view install;    ///< "install it (Debian: apt-get install libcurl4)"
};

/// One shared object, opened with RTLD_NOW | RTLD_LOCAL and never closed (the libraries loaded
/// this way keep global state for the life of the process).
class SharedLibrary {
 public:
  /// Opens `file` (a soname or a path). Throws vmxkit::Error saying what to install.
  SharedLibrary(const char* file, LibraryNeed need);

  /// Sets `f` to the symbol `name`; throws vmxkit::Error when the library has no such symbol.
  template <class F>
  void resolve(const char* name, F& f) const {
    f = reinterpret_cast<F>(symbol(name));
  }

  /// Throws the library's load error with `why`.
  [[noreturn]] void fail(const std::string& why) const;

 private:
  void* symbol(const char* name) const;

  void* handle_ = nullptr;
  const char* file_;
  LibraryNeed need_;
};

}  // namespace vmxkit
