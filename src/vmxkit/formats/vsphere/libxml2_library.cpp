// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/libxml2_library.h"

#include "vmxkit/core/shared_library.h"

#ifndef VMXKIT_LIBXML2_SONAME
#error "VMXKIT_LIBXML2_SONAME: libxml2's soname, found at build time (CMakeLists.txt)"
#endif

namespace vmxkit::vsphere {
namespace {

Libxml2 load() {
  // Never closed: libxml2 keeps global state (its parser's dictionaries, the error handlers)
  // for the life of the process.
  const SharedLibrary so(VMXKIT_LIBXML2_SONAME, {"reading vSphere XML needs libxml2",
                                                 "install it (Debian: apt-get install libxml2)"});
  decltype(&::xmlInitParser) init_parser = nullptr;
  so.resolve("xmlInitParser", init_parser);
  Libxml2 lib{};
  so.resolve("xmlNewParserCtxt", lib.new_parser_ctxt);
  so.resolve("xmlFreeParserCtxt", lib.free_parser_ctxt);
  so.resolve("xmlCtxtReadMemory", lib.ctxt_read_memory);
  so.resolve("xmlReadMemory", lib.read_memory);
  so.resolve("xmlFreeDoc", lib.free_doc);
  so.resolve("xmlDocGetRootElement", lib.doc_get_root_element);
  so.resolve("xmlGetLineNo", lib.get_line_no);
  so.resolve("xmlSchemaNewMemParserCtxt", lib.schema_new_mem_parser_ctxt);
  so.resolve("xmlSchemaSetParserStructuredErrors", lib.schema_set_parser_structured_errors);
  so.resolve("xmlSchemaParse", lib.schema_parse);
  so.resolve("xmlSchemaFreeParserCtxt", lib.schema_free_parser_ctxt);
  so.resolve("xmlSchemaFree", lib.schema_free);
  so.resolve("xmlSchemaNewValidCtxt", lib.schema_new_valid_ctxt);
  so.resolve("xmlSchemaSetValidStructuredErrors", lib.schema_set_valid_structured_errors);
  so.resolve("xmlSchemaValidateDoc", lib.schema_validate_doc);
  so.resolve("xmlSchemaValidateOneElement", lib.schema_validate_one_element);
  so.resolve("xmlSchemaFreeValidCtxt", lib.schema_free_valid_ctxt);
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
