// SPDX-License-Identifier: Apache-2.0
// The one command that still drives the vSphere client itself: `apply` (cmd_apply.cpp), until
// it moves onto the public apply_plan(). Then this file goes.
#include <memory>

#include "cli/live.h"
#include "vmxkit/api_client_internal.h"

namespace vmxkit::cli {

std::unique_ptr<vsphere::Client> open_client(const ServerOptions& options, Context& ctx) {
  return detail::connect(vsphere_server(options, ctx));
}

}  // namespace vmxkit::cli
