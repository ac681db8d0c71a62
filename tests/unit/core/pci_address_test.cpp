// SPDX-License-Identifier: Apache-2.0
#include "vmxkit/core/pci_address.h"

#include <catch2/catch.hpp>

using vmxkit::Bdf;
using vmxkit::parse_bdf;
using vmxkit::parse_vmx_bdf;

TEST_CASE("Bdf parses the lspci hex form with and without a domain", "[pci][bdf]") {
  CHECK(parse_bdf("0000:3b:00.0") == Bdf{0, 0x3b, 0, 0});
  CHECK(parse_bdf("3b:00.1") == Bdf{0, 0x3b, 0, 1});
  CHECK(parse_bdf("0005:09:1F.7") == Bdf{5, 9, 31, 7});
  CHECK(!parse_bdf("3b:00"));
  CHECK(!parse_bdf("3b:20.0"));  // device above 1f
  CHECK(!parse_bdf("3b:00.8"));
  CHECK(!parse_bdf("3b:00.0x"));
  CHECK(!parse_bdf("00000:059:00.0"));
}

TEST_CASE("Bdf parses the .vmx decimal form and the older domain-less form", "[pci][bdf]") {
  CHECK(parse_vmx_bdf("00000:059:00.0") == Bdf{0, 59, 0, 0});
  CHECK(parse_vmx_bdf("130:00.0") == Bdf{0, 130, 0, 0});
  CHECK(parse_vmx_bdf("59:0.1") == Bdf{0, 59, 0, 1});
  CHECK(!parse_vmx_bdf("00000:256:00.0"));
  CHECK(!parse_vmx_bdf("3b:00.0"));
}

TEST_CASE("Bdf prints both forms and orders like lspci", "[pci][bdf]") {
  const Bdf b{0, 0x3b, 0, 0};
  CHECK(b.to_string() == "0000:3b:00.0");
  CHECK(b.to_vmx() == "00000:059:00.0");
  CHECK(parse_vmx_bdf(b.to_vmx()) == b);
  CHECK(Bdf{0, 1, 0, 0} < Bdf{0, 1, 0, 1});
  CHECK(Bdf{0, 0xff, 31, 7} < Bdf{1, 0, 0, 0});
}
