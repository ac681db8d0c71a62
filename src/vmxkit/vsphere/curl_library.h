// SPDX-License-Identifier: Apache-2.0
// libcurl, loaded when the vSphere client first needs it. Linked into the program, libcurl and
// what it pulls in (GnuTLS, OpenSSL, LDAP, SSH, RTMP: 33 shared objects on Debian 12, several
// with constructors of their own) cost every run of every command about as much start-up time
// as everything else together, though only the live commands use it.
#pragma once

#include <curl/curl.h>

namespace vmxkit::vsphere {

/// The libcurl functions the client calls, resolved from libcurl's shared object (soname
/// libcurl.so.4, the ABI of every libcurl 7.x and 8.x).
struct CurlLibrary {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_perform) easy_perform;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_reset) easy_reset;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
  decltype(&::curl_url) url;
  decltype(&::curl_url_cleanup) url_cleanup;
  decltype(&::curl_url_set) url_set;
  decltype(&::curl_url_get) url_get;
  decltype(&::curl_url_strerror) url_strerror;
  decltype(&::curl_free) free;
};

/// libcurl, loaded and initialised (curl_global_init) on the first call; the same afterwards.
/// Throws vmxkit::Error, saying what to install, when it cannot be loaded.
const CurlLibrary& curl_library();

}  // namespace vmxkit::vsphere
