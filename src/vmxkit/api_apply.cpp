// SPDX-License-Identifier: Apache-2.0
// The facade's `vmxkit apply` without a server (vmxkit/vmxkit.h): config_change() over
// analysis/apply_change.h, and the public ConfigChange that apply_plan() (api_client.cpp)
// reports too.
#include <utility>

#include "vmxkit/analysis/apply_change.h"
#include "vmxkit/api_internal.h"
#include "vmxkit/core/io.h"
#include "vmxkit/formats/vsphere/configspec_xml.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit {

DocumentSource DocumentSource::from_bytes(std::string name, std::string bytes) {
  DocumentSource s(std::move(name));
  s.bytes = std::move(bytes);
  return s;
}

ConfigChange detail::to_config_change(const apply::Change& change) {
  ConfigChange out;
  out.spec_xml = vsphere::write_configspec_xml(change.spec);
  for (const apply::DiffLine& l : change.diff) out.diff.push_back(DiffLine{l.sign, l.what});
  out.placeholders = change.placeholders;
  out.firmware_changes = change.firmware_changes;
  out.devices_change = change.devices_change;
  out.memory_changes = change.memory_changes;
  out.nothing_to_send = change.empty();
  return out;
}

namespace {

std::string source_bytes(const DocumentSource& source) {
  return source.bytes ? *source.bytes : read_file(source.path);
}

}  // namespace

ConfigChange config_change(const DocumentSource& vm, const DocumentSource& plan,
                           const ChangeOptions& options) {
  // Each document is read, then parsed, in this order: the first that fails is the one named.
  const vsphere::ConfigSpec current = apply::read_vm(vm.path, source_bytes(vm));
  const vsphere::ConfigSpec wanted = apply::read_plan(plan.path, source_bytes(plan));
  return detail::to_config_change(
      apply::compute_change(current, wanted, {options.firmware_change, options.keep_memory}));
}

}  // namespace vmxkit
