// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/formats/vsphere/ids.h"

#include <catch2/catch.hpp>

using namespace vmxkit::vsphere;

TEST_CASE("API hex ids become the decimal ids ESXi writes in the vmx", "[spec][ids]") {
  CHECK(vmx_id_from_api("0000:65:00.0") == "00000:101:00.0");  // govmomi #2248
  CHECK(vmx_id_from_api("0000:1a:01.2") == "00000:026:01.2");
  CHECK(vmx_id_from_api("0000:3b:00.0") == "00000:059:00.0");
  CHECK(vmx_id_from_api("3b:00.0") == "00000:059:00.0");
  CHECK_FALSE(vmx_id_from_api("0000:3b:00").has_value());
  CHECK_FALSE(vmx_id_from_api("0000:3b:20.0").has_value());  // device > 0x1f
  CHECK_FALSE(vmx_id_from_api("0000:3b:00.8").has_value());
  CHECK_FALSE(vmx_id_from_api("").has_value());
}

TEST_CASE("vmx decimal ids become API hex ids", "[spec][ids]") {
  CHECK(api_id_from_vmx("00000:101:00.0") == "0000:65:00.0");
  CHECK(api_id_from_vmx("00000:026:01.2") == "0000:1a:01.2");
  CHECK(api_id_from_vmx("130:00.0") == "0000:82:00.0");        // older files, no domain
  CHECK(api_id_from_vmx("0000:AF:00.0") == "0000:af:00.0");    // hex form in hand-written files
  CHECK_FALSE(api_id_from_vmx("00000:300:00.0").has_value());  // bus > 255
  CHECK_FALSE(api_id_from_vmx("garbage").has_value());
}

TEST_CASE("vendor ids are signed shorts in the API", "[spec][ids]") {
  CHECK(to_signed_short(0x10de) == 4318);
  CHECK(to_signed_short(0x8086) == -32634);
  CHECK(from_signed_short(-32634) == 0x8086);
  CHECK(parse_short("-32634") == -32634);
  CHECK_FALSE(parse_short("32902").has_value());
  CHECK_FALSE(parse_short("+1").has_value());
}

TEST_CASE("device ids are hex without 0x in the API and 0x-hex in the vmx", "[spec][ids]") {
  CHECK(format_api_hex_id(0x20b5) == "20b5");
  CHECK(format_api_hex_id(0x0fb9) == "fb9");
  CHECK(format_vmx_pci_id(0x0fb9) == "0x0fb9");
  CHECK(parse_api_hex_id("1572") == 0x1572);
  CHECK(parse_api_hex_id("0x20B5") == 0x20b5);
  CHECK_FALSE(parse_api_hex_id("12345").has_value());
  CHECK(parse_vmx_pci_id("0x10de") == 0x10de);
  CHECK(parse_vmx_pci_id("4318") == 4318);
  CHECK_FALSE(parse_vmx_pci_id("0x10000").has_value());
}
