// SPDX-License-Identifier: Apache-2.0
// What the facade's files in vmxkit_client (api_client.cpp, api_server.cpp) share behind the
// public API: how a public VsphereServer becomes a connected vSphere client. Not installed.
#pragma once

#include <memory>

#include "vmxkit/vmxkit.h"
#include "vmxkit/vsphere/client.h"

namespace vmxkit::detail {

/// The client's options as govc reads them from the environment, with what `server` gives over
/// them (credentials, proxy, timeout, allow_http, batch size, on_request).
vsphere::ClientOptions client_options(const VsphereServer& server);

/// A client for `server`, connected (logged in); `server.on_connected` has been called.
std::unique_ptr<vsphere::Client> connect(const VsphereServer& server);

}  // namespace vmxkit::detail
