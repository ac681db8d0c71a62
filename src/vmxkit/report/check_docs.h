// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include "vmxkit/checks/rule.h"

namespace vmxkit::checks {

/// One rule's page: a title line, its metadata and its doc.
std::string rule_page(const Rule& rule);
/// The whole catalogue as markdown: a table, then every rule's page (docs/rules.md).
std::string catalogue_markdown();

}  // namespace vmxkit::checks
