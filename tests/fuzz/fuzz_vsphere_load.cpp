// SPDX-License-Identifier: Apache-2.0
// Input-format fuzzer for vsphere::load (ConfigSpec XML, SOAP, VI/JSON, OVF, .vmx): any bytes
// either load or throw vmxkit::Error; no crash, leak, sanitizer report or other exception. What
// loads from a ConfigSpec-family format and renders as ConfigSpec XML loads back. The same bytes
// as a ConfigTarget (generate --config-target) either read or throw vmxkit::Error.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "vmxkit/core/error.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/vsphere/config_target.h"
#include "vmxkit/formats/vsphere/load.h"
#include "vmxkit/formats/vsphere/render.h"

namespace {
// The format table's name of what the bytes are, as load() tells it.
std::string_view recognised(std::string_view bytes) {
  return vmxkit::formats::recognise_vm_input(bytes).name;
}
}  // namespace

using namespace vmxkit::vsphere;

#define FUZZ_ASSERT(cond)      \
  do {                         \
    if (!(cond)) std::abort(); \
  } while (0)

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  try {
    (void)read_vendor_device_groups(vmxkit::SourceFile("fuzz.target", input));
  } catch (const vmxkit::Error&) {
  } catch (...) {
    std::abort();  // only vmxkit::Error may leave a reader
  }
  const std::string_view detected = recognised(input);
  std::optional<Loaded> result;
  try {
    result.emplace(load("fuzz", std::move(input)));
  } catch (const vmxkit::Error&) {
    return 0;
  }
  const Loaded& loaded = *result;
  FUZZ_ASSERT(loaded.format->name == detected);
  FUZZ_ASSERT(!loaded.vms.empty() || loaded.format->name == "ovf");
  if (loaded.format->name == "vmx" || loaded.vms.empty()) return 0;

  std::string rendered;
  try {
    rendered = render(loaded.vms.front().config, "configspec-xml");
  } catch (const vmxkit::Error&) {
    return 0;  // some configurations cannot be rendered
  }
  // Our own output must be readable as a ConfigSpec.
  const Loaded again = load("fuzz.rendered.xml", rendered);
  FUZZ_ASSERT(again.format != nullptr && again.format->name == "configspec-xml");
  FUZZ_ASSERT(again.vms.size() == 1);
  return 0;
}
