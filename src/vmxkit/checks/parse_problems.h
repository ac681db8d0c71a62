// SPDX-License-Identifier: Apache-2.0
// The parsers' low-level problems as diagnostics of the rules that own them: the parsers report
// what is wrong and where, the rule table gives the id and severity. Defined with those rules
// (vmx001_malformed_line.cpp, xml001_configspec_schema_violation.cpp,
// ovf001_ovf_setting_not_read.cpp, form001_declaration_form_note.cpp,
// form002_value_unknown_until_apply.cpp).
#pragma once

#include <span>
#include <vector>

#include "vmxkit/checks/check.h"
#include "vmxkit/checks/context.h"
#include "vmxkit/core/diagnostic.h"
#include "vmxkit/formats/form_note.h"
#include "vmxkit/formats/vmx/document.h"
#include "vmxkit/formats/vsphere/ovf.h"
#include "vmxkit/formats/vsphere/schema.h"

namespace vmxkit::checks {

/// The rule a malformed `.vmx` line is reported as: VMX002 for an unterminated quote, VMX001
/// for every other problem.
const Check& rule_for(vmx::Problem kind);

/// Reports the document's malformed lines that are `rule`'s (the check of VMX001 and VMX002).
void report_line_problems(const Check& rule, const Context& ctx, Sink& sink);

/// Malformed lines as VMX001/VMX002 diagnostics, in the order given.
std::vector<Diagnostic> line_diagnostics(std::span<const vmx::LineProblem> problems);

/// Schema problems as XML001 diagnostics, in the order given.
std::vector<Diagnostic> schema_diagnostics(std::span<const vsphere::SchemaProblem> problems);

/// An OVF VirtualSystem's settings that vmxkit did not read, as OVF001 diagnostics.
std::vector<Diagnostic> unread_diagnostics(std::span<const vsphere::OvfUnread> unread);

/// What a Terraform resource or VM class leaves to vSphere or cannot say, as FORM001 diagnostics.
std::vector<Diagnostic> form_note_diagnostics(std::span<const FormNote> notes);

/// A Terraform plan's values known only after apply: each finding of `found` that would call a
/// setting they give missing becomes a FORM002 note saying it is not known until apply, and each
/// unknown value is named (FORM002).
void defer_unknown(std::vector<Diagnostic>& found, std::span<const UnknownValue> unknown);

}  // namespace vmxkit::checks
