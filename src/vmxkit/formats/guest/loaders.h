// SPDX-License-Identifier: Apache-2.0
// One loader per guest input kind (internal to the module): small hand parsers over
// std::string_view. Each throws vmxkit::Error with file:line:col for input it cannot read.
#pragma once

#include <string>
#include <string_view>

#include "vmxkit/model/guest.h"

namespace vmxkit::guest {

void load_lsmod(Guest& g, std::string_view text, const std::string& path);
void load_cmdline(Guest& g, std::string_view text, const std::string& path);
void load_nvidia_smi(Guest& g, std::string_view text, const std::string& path);
void load_nvidia_smi_query(Guest& g, std::string_view text, const std::string& path);
void load_nvidia_smi_topo(Guest& g, std::string_view text, const std::string& path);
void load_ibv_devinfo(Guest& g, std::string_view text, const std::string& path);
void load_uname(Guest& g, std::string_view text, const std::string& path);
void load_module_versions(Guest& g, std::string_view text, const std::string& path);
void load_nvidia_version(Guest& g, std::string_view text, const std::string& path);
void load_modinfo(Guest& g, std::string_view text, const std::string& path);
void load_ofed_info(Guest& g, std::string_view text, const std::string& path);
/// NCCL's log: the NCCL_TOPO_FILE it says it read (`NCCL_TOPO_FILE set by environment to F`,
/// `Loading topology file F`; ncclTopoGetSystem and ncclTopoGetXmlFromFile in NCCL).
void load_nccl_log(Guest& g, std::string_view text, const std::string& path);
/// NCCL's log: what NCCL says it decided (version, overrides, NET plugin, GPU Direct RDMA,
/// channels, the search result), added to `log` (formats/guest/nccl_log.cpp).
void load_nccl_decisions(NcclLog& log, std::string_view text, const std::string& path);
/// `env` output: the NCCL_TOPO_FILE line.
void load_environment(Guest& g, std::string_view text, const std::string& path);

/// `5.15.0-91-generic` -> major 5, minor 15; nullopt when it does not start with N.N.
std::optional<std::pair<unsigned, unsigned>> parse_release(std::string_view release);

}  // namespace vmxkit::guest
