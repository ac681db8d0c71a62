// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/vsphere/curl_library.h"

#include "vmxkit/core/shared_library.h"

namespace vmxkit::vsphere {
namespace {

CurlLibrary load() {
  // Never closed: libcurl keeps global state for the life of the process.
  const SharedLibrary so("libcurl.so.4", {"the vSphere client needs libcurl",
                                          "install it (Debian: apt-get install libcurl4)"});
  CurlLibrary lib{};
  so.resolve("curl_global_init", lib.global_init);
  so.resolve("curl_easy_init", lib.easy_init);
  so.resolve("curl_easy_setopt", lib.easy_setopt);
  so.resolve("curl_easy_perform", lib.easy_perform);
  so.resolve("curl_easy_getinfo", lib.easy_getinfo);
  so.resolve("curl_easy_reset", lib.easy_reset);
  so.resolve("curl_easy_cleanup", lib.easy_cleanup);
  so.resolve("curl_easy_strerror", lib.easy_strerror);
  so.resolve("curl_slist_append", lib.slist_append);
  so.resolve("curl_slist_free_all", lib.slist_free_all);
  so.resolve("curl_url", lib.url);
  so.resolve("curl_url_cleanup", lib.url_cleanup);
  so.resolve("curl_url_set", lib.url_set);
  so.resolve("curl_url_get", lib.url_get);
  so.resolve("curl_url_strerror", lib.url_strerror);
  so.resolve("curl_free", lib.free);
  if (lib.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) so.fail("curl_global_init failed");
  return lib;
}

}  // namespace

const CurlLibrary& curl_library() {
  static const CurlLibrary lib = load();  // a failed load throws, and the next call tries again
  return lib;
}

}  // namespace vmxkit::vsphere
