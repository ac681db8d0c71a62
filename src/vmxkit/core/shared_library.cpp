// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/shared_library.h"

#include <dlfcn.h>

#include "vmxkit/core/error.h"

namespace vmxkit {

SharedLibrary::SharedLibrary(const char* file, LibraryNeed need) : file_(file), need_(need) {
  handle_ = ::dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* error = ::dlerror();
    fail(error != nullptr ? error : file);
  }
}

void SharedLibrary::fail(const std::string& why) const {
  throw Error(std::string(need_.needed_by) + ", which cannot be loaded (" + why + "); " +
              std::string(need_.install));
}

void* SharedLibrary::symbol(const char* name) const {
  void* address = ::dlsym(handle_, name);
  if (address == nullptr) fail(std::string(file_) + " has no " + name);
  return address;
}

}  // namespace vmxkit
