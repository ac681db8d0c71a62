// SPDX-License-Identifier: Apache-2.0
// The facade's SVG (vmxkit/vmxkit.h): render_svg() over report/diagram_svg.cpp. Compiled into
// vmxkit_graphviz (vmxkit::graphviz) with it, so that vmxkit::core holds nothing of Graphviz.
#include <string>

#include "vmxkit/report/diagram.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit {

std::string render_svg(std::string_view dot) { return pci::render_svg(dot); }

}  // namespace vmxkit
