// SPDX-License-Identifier: Apache-2.0
// SVG from DOT with Graphviz's C library: agmemread, gvLayout "dot", gvRenderData "svg". The
// only file that includes Graphviz's headers.
//
// The context is built from the two plugins it needs, linked in (layout `dot`, renderer `svg`
// of the core plugin), not from the plugins Graphviz would load from its configuration: without
// the text-layout plugin (pango) label widths come from Graphviz's own font metrics, so the
// same DOT renders to the same bytes on every machine with this Graphviz version, whatever fonts
// it has, and no plugin configuration file is needed.
#include <gvc.h>
#include <gvplugin.h>

#include <memory>
#include <mutex>
#include <string>

#include "vmxkit/core/error.h"
#include "vmxkit/report/diagram.h"

extern "C" {
extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
extern gvplugin_library_t gvplugin_core_LTX_library;
}

namespace vmxkit::pci {
namespace {

// Graphviz keeps its error state in globals: one rendering at a time.
std::mutex graphviz_mutex;
// What Graphviz reported during the current rendering (agerr messages come in pieces).
std::string* messages = nullptr;

int collect_message(char* text) {
  if (messages != nullptr && text != nullptr) *messages += text;
  return 0;
}

struct ContextDeleter {
  void operator()(GVC_t* gvc) const { gvFreeContext(gvc); }
};
struct GraphDeleter {
  void operator()(Agraph_t* g) const { agclose(g); }
};

// The first line of what Graphviz said, without its "Error: " prefix.
std::string first_message(const std::string& text, const char* fallback) {
  std::string line = text.substr(0, text.find('\n'));
  for (const std::string prefix : {"Error: ", "Warning: "}) {
    if (line.rfind(prefix, 0) == 0) line.erase(0, prefix.size());
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line.empty() ? fallback : line;
}

}  // namespace

std::string render_svg(std::string_view dot) {
  const std::lock_guard<std::mutex> lock(graphviz_mutex);
  std::string said;
  messages = &said;
  const agusererrf previous = agseterrf(collect_message);
  struct Restore {
    agusererrf previous;
    ~Restore() {
      agseterrf(previous);
      messages = nullptr;
    }
  } restore{previous};
  agreseterrors();

  static const lt_symlist_t kBuiltins[] = {
      {"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
      {"gvplugin_core_LTX_library", &gvplugin_core_LTX_library},
      {nullptr, nullptr}};
  const std::unique_ptr<GVC_t, ContextDeleter> gvc(gvContextPlugins(kBuiltins, 0));
  if (!gvc) throw Error("Graphviz: cannot create a context");
  const std::string text(dot);  // agmemread wants a NUL-terminated string
  const std::unique_ptr<Agraph_t, GraphDeleter> graph(agmemread(text.c_str()));
  if (!graph || agerrors() >= AGERR) {
    throw Error("Graphviz: cannot read the DOT: " + first_message(said, "syntax error"));
  }
  if (gvLayout(gvc.get(), graph.get(), "dot") != 0 || agerrors() >= AGERR) {
    gvFreeLayout(gvc.get(), graph.get());
    throw Error("Graphviz: layout failed: " + first_message(said, "unknown error"));
  }
  char* data = nullptr;
  unsigned int length = 0;
  const int rc = gvRenderData(gvc.get(), graph.get(), "svg", &data, &length);
  std::string svg;
  if (rc == 0 && data != nullptr) svg.assign(data, length);
  if (data != nullptr) gvFreeRenderData(data);
  gvFreeLayout(gvc.get(), graph.get());
  if (rc != 0 || agerrors() >= AGERR) {
    throw Error("Graphviz: rendering SVG failed: " + first_message(said, "unknown error"));
  }
  return svg;
}

}  // namespace vmxkit::pci
