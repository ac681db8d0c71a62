// SPDX-License-Identifier: Apache-2.0
// Every rule of the catalogue, one definition per file (`<id>_<name>.cpp`), registered in the
// sorted table of registry.cpp.
#pragma once

#include "vmxkit/checks/context.h"
#include "vmxkit/checks/rule.h"

namespace vmxkit::checks {

extern const Rule kMMIO001;
extern const Rule kMMIO002;
extern const Rule kMMIO003;
extern const Rule kMMIO004;
extern const Rule kMMIO005;
extern const Rule kOVF001;
extern const Rule kP2P001;
extern const Rule kP2P002;
extern const Rule kP2P003;
extern const Rule kP2P004;
extern const Rule kP2P005;
extern const Rule kPT001;
extern const Rule kPT002;
extern const Rule kPT003;
extern const Rule kPT004;
extern const Rule kPT005;
extern const Rule kPT006;
extern const Rule kPT007;
extern const Rule kPT008;
extern const Rule kPT009;
extern const Rule kPT010;
extern const Rule kPT011;
extern const Rule kPT012;
extern const Rule kTOPO001;
extern const Rule kTOPO002;
extern const Rule kTOPO003;
extern const Rule kTOPO004;
extern const Rule kTOPO005;
extern const Rule kTOPO006;
extern const Rule kTOPO007;
extern const Rule kTOPO008;
extern const Rule kTOPO009;
extern const Rule kTOPO010;
extern const Rule kTOPO011;
extern const Rule kVMX001;
extern const Rule kVMX002;
extern const Rule kVMX003;
extern const Rule kVMX004;
extern const Rule kVMX005;
extern const Rule kVMX006;
extern const Rule kVMX007;
extern const Rule kVMX008;
extern const Rule kVMX009;
extern const Rule kVMX010;
extern const Rule kVMX011;
extern const Rule kVMX012;
extern const Rule kXML001;

}  // namespace vmxkit::checks
