// SPDX-License-Identifier: Apache-2.0
// libxml2, loaded when a vSphere XML document is first read or validated. Linked into the
// program, libxml2 and ICU (which it pulls in) cost every run of every command about 2 ms of
// start-up, a third of `vmxkit --version`, though only the XML readers and the schema check
// use it.
#pragma once

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>

namespace vmxkit::vsphere {

/// The libxml2 functions vmxkit calls, resolved from libxml2's shared object (its soname as
/// found at build time: libxml2.so.2, the ABI of every libxml2 2.x).
struct Libxml2 {
  decltype(&::xmlNewParserCtxt) new_parser_ctxt;
  decltype(&::xmlFreeParserCtxt) free_parser_ctxt;
  decltype(&::xmlCtxtReadMemory) ctxt_read_memory;
  decltype(&::xmlReadMemory) read_memory;
  decltype(&::xmlFreeDoc) free_doc;
  decltype(&::xmlDocGetRootElement) doc_get_root_element;
  decltype(&::xmlGetLineNo) get_line_no;
  decltype(&::xmlSchemaNewMemParserCtxt) schema_new_mem_parser_ctxt;
  decltype(&::xmlSchemaSetParserStructuredErrors) schema_set_parser_structured_errors;
  decltype(&::xmlSchemaParse) schema_parse;
  decltype(&::xmlSchemaFreeParserCtxt) schema_free_parser_ctxt;
  decltype(&::xmlSchemaFree) schema_free;
  decltype(&::xmlSchemaNewValidCtxt) schema_new_valid_ctxt;
  decltype(&::xmlSchemaSetValidStructuredErrors) schema_set_valid_structured_errors;
  decltype(&::xmlSchemaValidateDoc) schema_validate_doc;
  decltype(&::xmlSchemaValidateOneElement) schema_validate_one_element;
  decltype(&::xmlSchemaFreeValidCtxt) schema_free_valid_ctxt;
};

/// libxml2, loaded and initialised (xmlInitParser) on the first call; the same afterwards.
/// Thread-safe. Throws vmxkit::Error, saying what to install, when it cannot be loaded.
const Libxml2& libxml2();

}  // namespace vmxkit::vsphere
