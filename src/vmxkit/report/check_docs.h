// SPDX-License-Identifier: Apache-2.0
// The check catalogue as text: one check's page (`vmxkit rule ID`), the whole catalogue as
// markdown (docs/rules.md), and as JSON values (`vmxkit rules --format json`).
#pragma once

#include <string>

#include "vmxkit/checks/check.h"

namespace vmxkit::checks {

/// Where a check of this kind runs: "`vmxkit lint`", "`vmxkit host-check`"...
std::string_view command_of(Kind kind);
/// One check's page: a title line, its metadata and its doc.
std::string rule_page(const Check& check);
/// The whole catalogue as markdown: a table, then every check's page (docs/rules.md).
std::string catalogue_markdown();

}  // namespace vmxkit::checks
