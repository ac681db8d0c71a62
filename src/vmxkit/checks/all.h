// SPDX-License-Identifier: Apache-2.0
// Every check, one definition per file (`<kind>/<id>_<name>.cpp`), declared here from the list
// the build makes of those files (check_list.inc: `VMXKIT_CHECK(PT001)` per check, sorted).
#pragma once

#include "vmxkit/checks/check.h"
#include "vmxkit/checks/context.h"

namespace vmxkit::checks {

#define VMXKIT_CHECK(id) extern const Check k##id;
#include "vmxkit/checks/check_list.inc"
#undef VMXKIT_CHECK

}  // namespace vmxkit::checks
