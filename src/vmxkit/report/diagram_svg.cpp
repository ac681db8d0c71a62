// SPDX-License-Identifier: Apache-2.0
// SVG from DOT with Graphviz's C library: agmemread, gvLayout "dot", gvRenderData "svg". The
// only file that includes Graphviz's headers.
//
// The context is built from the two plugins it needs, passed as built-ins (layout `dot`,
// renderer `svg` of the core plugin), not from the plugins Graphviz would load from its
// configuration: without the text-layout plugin (pango) label widths come from Graphviz's own
// font metrics, so the same DOT renders to the same bytes on every machine with this Graphviz
// version, whatever fonts it has, and no plugin configuration file is needed.
//
// Graphviz is loaded on the first rendering (dlopen), not linked: linked, its libraries and
// the plugins' (libgvc, libcgraph, libcdt, libpathplan, libltdl, libexpat...) were loaded and
// relocated at the start of every command, though only `topo --format svg` renders. The
// libraries' sonames and the plugins' paths are those found at build time
// (src/vmxkit/report/CMakeLists.txt).
#include <gvc.h>
#include <gvplugin.h>

#include <memory>
#include <mutex>
#include <string>

#include "vmxkit/core/error.h"
#include "vmxkit/core/shared_library.h"
#include "vmxkit/report/diagram.h"

namespace vmxkit::pci {
namespace {

/// The Graphviz functions render_svg() calls, and the two plugins' library descriptions.
struct Graphviz {
  decltype(&::gvContextPlugins) context_plugins;
  decltype(&::gvFreeContext) free_context;
  decltype(&::gvLayout) layout;
  decltype(&::gvFreeLayout) free_layout;
  decltype(&::gvRenderData) render_data;
  decltype(&::gvFreeRenderData) free_render_data;
  decltype(&::agmemread) memread;
  decltype(&::agclose) close;
  decltype(&::agseterrf) seterrf;
  decltype(&::agreseterrors) reseterrors;
  decltype(&::agerrors) errors;
  gvplugin_library_t* dot_layout;
  gvplugin_library_t* core;
};

// Never closed: Graphviz keeps global state (its error handler, plugin tables).
constexpr LibraryNeed kGraphvizNeed{"SVG output needs Graphviz's libraries",
                                    "install them (Debian: apt-get install libgvc6)"};

Graphviz load() {
  const SharedLibrary gvc(VMXKIT_GVC_SONAME, kGraphvizNeed);
  const SharedLibrary cgraph(VMXKIT_CGRAPH_SONAME, kGraphvizNeed);
  const SharedLibrary dot_layout(VMXKIT_GVPLUGIN_DOT_LAYOUT_PATH, kGraphvizNeed);
  const SharedLibrary core(VMXKIT_GVPLUGIN_CORE_PATH, kGraphvizNeed);
  Graphviz g{};
  gvc.resolve("gvContextPlugins", g.context_plugins);
  gvc.resolve("gvFreeContext", g.free_context);
  gvc.resolve("gvLayout", g.layout);
  gvc.resolve("gvFreeLayout", g.free_layout);
  gvc.resolve("gvRenderData", g.render_data);
  gvc.resolve("gvFreeRenderData", g.free_render_data);
  cgraph.resolve("agmemread", g.memread);
  cgraph.resolve("agclose", g.close);
  cgraph.resolve("agseterrf", g.seterrf);
  cgraph.resolve("agreseterrors", g.reseterrors);
  cgraph.resolve("agerrors", g.errors);
  dot_layout.resolve("gvplugin_dot_layout_LTX_library", g.dot_layout);
  core.resolve("gvplugin_core_LTX_library", g.core);
  return g;
}

/// Graphviz, loaded on the first call; the same afterwards. A failed load throws, and the next
/// call tries again.
const Graphviz& graphviz() {
  static const Graphviz g = load();
  return g;
}

// Graphviz keeps its error state in globals: one rendering at a time.
std::mutex graphviz_mutex;
// What Graphviz reported during the current rendering (agerr messages come in pieces).
std::string* messages = nullptr;

int collect_message(char* text) {
  if (messages != nullptr && text != nullptr) *messages += text;
  return 0;
}

struct ContextDeleter {
  void operator()(GVC_t* gvc) const { graphviz().free_context(gvc); }
};
struct GraphDeleter {
  void operator()(Agraph_t* g) const { graphviz().close(g); }
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
  const Graphviz& gv = graphviz();
  const std::lock_guard<std::mutex> lock(graphviz_mutex);
  std::string said;
  messages = &said;
  const agusererrf previous = gv.seterrf(collect_message);
  struct Restore {
    const Graphviz& gv;
    agusererrf previous;
    ~Restore() {
      gv.seterrf(previous);
      messages = nullptr;
    }
  } restore{gv, previous};
  gv.reseterrors();

  const lt_symlist_t builtins[] = {{"gvplugin_dot_layout_LTX_library", gv.dot_layout},
                                   {"gvplugin_core_LTX_library", gv.core},
                                   {nullptr, nullptr}};
  const std::unique_ptr<GVC_t, ContextDeleter> gvc(gv.context_plugins(builtins, 0));
  if (!gvc) throw Error("Graphviz: cannot create a context");
  const std::string text(dot);  // agmemread wants a NUL-terminated string
  const std::unique_ptr<Agraph_t, GraphDeleter> graph(gv.memread(text.c_str()));
  if (!graph || gv.errors() >= AGERR) {
    throw Error("Graphviz: cannot read the DOT: " + first_message(said, "syntax error"));
  }
  if (gv.layout(gvc.get(), graph.get(), "dot") != 0 || gv.errors() >= AGERR) {
    gv.free_layout(gvc.get(), graph.get());
    throw Error("Graphviz: layout failed: " + first_message(said, "unknown error"));
  }
  char* data = nullptr;
  unsigned int length = 0;
  const int rc = gv.render_data(gvc.get(), graph.get(), "svg", &data, &length);
  std::string svg;
  if (rc == 0 && data != nullptr) svg.assign(data, length);
  if (data != nullptr) gv.free_render_data(data);
  gv.free_layout(gvc.get(), graph.get());
  if (rc != 0 || gv.errors() >= AGERR) {
    throw Error("Graphviz: rendering SVG failed: " + first_message(said, "unknown error"));
  }
  return svg;
}

}  // namespace vmxkit::pci
