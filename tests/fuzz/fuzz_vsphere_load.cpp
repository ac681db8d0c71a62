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
  const Format detected = detect_format(input);
  std::optional<Loaded> result;
  try {
    result.emplace(load("fuzz", std::move(input)));
  } catch (const vmxkit::Error&) {
    return 0;
  }
  const Loaded& loaded = *result;
  FUZZ_ASSERT(loaded.format == detected);
  FUZZ_ASSERT(!loaded.vms.empty() || loaded.format == Format::ovf);
  if (loaded.format == Format::vmx || loaded.vms.empty()) return 0;

  std::string rendered;
  try {
    rendered = render(loaded.vms.front().config, OutputFormat::configspec_xml);
  } catch (const vmxkit::Error&) {
    return 0;  // some configurations cannot be rendered
  }
  // Our own output must be readable as a ConfigSpec.
  const Loaded again = load("fuzz.rendered.xml", rendered);
  FUZZ_ASSERT(again.format == Format::configspec_xml);
  FUZZ_ASSERT(again.vms.size() == 1);
  return 0;
}
