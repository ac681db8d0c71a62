// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vsphere/curl_library.h"

#include <dlfcn.h>

#include <string>

#include "vmxkit/core/error.h"

namespace vmxkit::vsphere {
namespace {

constexpr const char* kSoname = "libcurl.so.4";

[[noreturn]] void cannot_load(const std::string& why) {
  throw Error(std::string("the vSphere client needs libcurl, which cannot be loaded (") + why +
              "); install it (Debian: apt-get install libcurl4)");
}

template <class F>
void resolve(void* handle, const char* name, F& f) {
  void* symbol = ::dlsym(handle, name);
  if (symbol == nullptr) cannot_load(std::string(kSoname) + " has no " + name);
  f = reinterpret_cast<F>(symbol);
}

CurlLibrary load() {
  // Never closed: libcurl keeps global state for the life of the process.
  void* handle = ::dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    cannot_load(error != nullptr ? error : kSoname);
  }
  CurlLibrary lib{};
  resolve(handle, "curl_global_init", lib.global_init);
  resolve(handle, "curl_easy_init", lib.easy_init);
  resolve(handle, "curl_easy_setopt", lib.easy_setopt);
  resolve(handle, "curl_easy_perform", lib.easy_perform);
  resolve(handle, "curl_easy_getinfo", lib.easy_getinfo);
  resolve(handle, "curl_easy_reset", lib.easy_reset);
  resolve(handle, "curl_easy_cleanup", lib.easy_cleanup);
  resolve(handle, "curl_easy_strerror", lib.easy_strerror);
  resolve(handle, "curl_slist_append", lib.slist_append);
  resolve(handle, "curl_slist_free_all", lib.slist_free_all);
  resolve(handle, "curl_url", lib.url);
  resolve(handle, "curl_url_cleanup", lib.url_cleanup);
  resolve(handle, "curl_url_set", lib.url_set);
  resolve(handle, "curl_url_get", lib.url_get);
  resolve(handle, "curl_url_strerror", lib.url_strerror);
  resolve(handle, "curl_free", lib.free);
  if (lib.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) cannot_load("curl_global_init failed");
  return lib;
}

}  // namespace

const CurlLibrary& curl_library() {
  static const CurlLibrary lib = load();  // a failed load throws, and the next call tries again
  return lib;
}

}  // namespace vmxkit::vsphere
