// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/libxml2_library.h"

#include <dlfcn.h>

#include <string>

#include "vmxkit/core/error.h"

#ifndef VMXKIT_LIBXML2_SONAME
#error "VMXKIT_LIBXML2_SONAME: libxml2's soname, found at build time (CMakeLists.txt)"
#endif

namespace vmxkit::vsphere {
namespace {

constexpr const char* kSoname = VMXKIT_LIBXML2_SONAME;

[[noreturn]] void cannot_load(const std::string& why) {
  throw Error(std::string("reading vSphere XML needs libxml2, which cannot be loaded (") + why +
              "); install it (Debian: apt-get install libxml2)");
}

template <class F>
void resolve(void* handle, const char* name, F& f) {
  void* symbol = ::dlsym(handle, name);
  if (symbol == nullptr) cannot_load(std::string(kSoname) + " has no " + name);
  f = reinterpret_cast<F>(symbol);
}

Libxml2 load() {
  // Never closed: libxml2 keeps global state (its parser's dictionaries, the error handlers)
  // for the life of the process.
  void* handle = ::dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    cannot_load(error != nullptr ? error : kSoname);
  }
  decltype(&::xmlInitParser) init_parser = nullptr;
  resolve(handle, "xmlInitParser", init_parser);
  Libxml2 lib{};
  resolve(handle, "xmlNewParserCtxt", lib.new_parser_ctxt);
  resolve(handle, "xmlFreeParserCtxt", lib.free_parser_ctxt);
  resolve(handle, "xmlCtxtReadMemory", lib.ctxt_read_memory);
  resolve(handle, "xmlReadMemory", lib.read_memory);
  resolve(handle, "xmlFreeDoc", lib.free_doc);
  resolve(handle, "xmlDocGetRootElement", lib.doc_get_root_element);
  resolve(handle, "xmlGetLineNo", lib.get_line_no);
  resolve(handle, "xmlSchemaNewMemParserCtxt", lib.schema_new_mem_parser_ctxt);
  resolve(handle, "xmlSchemaSetParserStructuredErrors", lib.schema_set_parser_structured_errors);
  resolve(handle, "xmlSchemaParse", lib.schema_parse);
  resolve(handle, "xmlSchemaFreeParserCtxt", lib.schema_free_parser_ctxt);
  resolve(handle, "xmlSchemaFree", lib.schema_free);
  resolve(handle, "xmlSchemaNewValidCtxt", lib.schema_new_valid_ctxt);
  resolve(handle, "xmlSchemaSetValidStructuredErrors", lib.schema_set_valid_structured_errors);
  resolve(handle, "xmlSchemaValidateDoc", lib.schema_validate_doc);
  resolve(handle, "xmlSchemaValidateOneElement", lib.schema_validate_one_element);
  resolve(handle, "xmlSchemaFreeValidCtxt", lib.schema_free_valid_ctxt);
  // Once, before any thread parses: libxml2's global state is then set up (its documentation
  // asks for this call in the main thread of a multithreaded program).
  init_parser();
  return lib;
}

}  // namespace

const Libxml2& libxml2() {
  static const Libxml2 lib = load();  // a failed load throws, and the next call tries again
  return lib;
}

}  // namespace vmxkit::vsphere
