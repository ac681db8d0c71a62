// SPDX-License-Identifier: Apache-2.0
// VI/JSON reader fuzzer (json::parse and read_vi_json): any bytes either read or throw
// vmxkit::Error naming a line and column; no crash, leak, sanitizer report or other exception.
// What reads writes as VI/JSON that reads back to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "vmxkit/core/error.h"
#include "vmxkit/core/source_file.h"
#include "vmxkit/formats/vsphere/configspec.h"
#include "vmxkit/formats/vsphere/vi_json.h"

using namespace vmxkit;
using namespace vmxkit::vsphere;

#define FUZZ_ASSERT(cond)      \
  do {                         \
    if (!(cond)) std::abort(); \
  } while (0)

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const SourceFile source("fuzz.json", std::string(reinterpret_cast<const char*>(data), size));
  std::optional<JsonConfigSpec> read;
  try {
    read.emplace(read_vi_json(source));
  } catch (const Error& e) {
    // Inputs here are far below the size limit, the one error without a place.
    FUZZ_ASSERT(e.line() > 0 && e.column() > 0);
    return 0;
  } catch (...) {
    std::abort();  // only vmxkit::Error may leave a reader
  }
  const ConfigSpec& spec = read->spec;
  FUZZ_ASSERT(read->type_name == "VirtualMachineConfigSpec" ||
              read->type_name == "VirtualMachineConfigInfo");

  // Every span the model keeps lies in the input. The model refuses a device that names a
  // device group the document does not declare, at its line and column.
  std::optional<VmConfig> model;
  try {
    const VmConfig& config = model.emplace(to_vm_config(spec, &source));
    for (const Setting& s : config.settings) {
      FUZZ_ASSERT(s.whole.begin <= s.whole.end && s.whole.end <= size);
      FUZZ_ASSERT(s.value_span.begin <= s.value_span.end && s.value_span.end <= size);
    }
    for (const DeviceGroup& g : config.device_groups) {
      FUZZ_ASSERT(g.whole.begin <= g.whole.end && g.whole.end <= size);
    }
  } catch (const Error& e) {
    FUZZ_ASSERT(e.line() > 0 && e.column() > 0);
  } catch (...) {
    std::abort();
  }

  // What was read can be written (its strings are UTF-8), and that reads back as itself.
  std::string written;
  try {
    written = write_vi_json(spec);
  } catch (...) {
    std::abort();
  }
  try {
    const JsonConfigSpec again = read_vi_json(SourceFile("fuzz.written.json", written));
    FUZZ_ASSERT(write_vi_json(again.spec) == written);
  } catch (...) {
    std::abort();
  }

  // The mapping back from the model either works or names the setting.
  if (!model) return 0;
  try {
    (void)from_vm_config(*model, source);
  } catch (const Error&) {
  } catch (...) {
    std::abort();
  }
  return 0;
}
