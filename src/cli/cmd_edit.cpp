// SPDX-License-Identifier: Apache-2.0
// vmxkit set FILE KEY=VALUE... and vmxkit unset FILE KEY... : edit keys, keeping every other byte.
#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit::cli {
namespace {

struct EditOptions {
  std::string file;
  std::vector<std::string> items;
  WriteOptions write;
};

// A key as the user typed it: must be something VMware can read back as one key.
void check_key(const std::string& key, const std::string& item) {
  if (key.empty()) throw Error("'" + item + "': expected KEY=VALUE with a non-empty KEY");
  for (const char c : key) {
    if (c == ' ' || c == '\t' || c == '#' || c == '=' || c == '"' ||
        static_cast<unsigned char>(c) < 0x20) {
      throw Error("'" + item +
                  "': a key cannot contain whitespace, '#', '=', '\"' or control "
                  "characters");
    }
  }
}

// The malformed-line warnings; the document they need is parsed only when there is one.
void warn_if_malformed(std::string_view bytes, const std::string& file, Context& ctx) {
  if (vmx_has_problems(bytes, display_name(file))) {
    warn_malformed(VmxDocument::parse(std::string(bytes), display_name(file)), ctx);
  }
}

int run_set(const EditOptions& o, Context& ctx) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const std::string& item : o.items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw Error("'" + item + "': expected KEY=VALUE");
    pairs.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    check_key(pairs.back().first, item);
  }
  edit_input(o.file, o.write, ctx, [&](const std::string& bytes) {
    warn_if_malformed(bytes, o.file, ctx);
    // Each edit streams the current bytes into the next: no VmxDocument, no extra copies.
    std::string current;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const auto& [key, value] = pairs[i];
      current = vmx_set(i == 0 ? std::string_view(bytes) : current, key, value);
    }
    return current;
  });
  return kExitClean;
}

int run_unset(const EditOptions& o, Context& ctx) {
  for (const std::string& key : o.items) check_key(key, key);
  edit_input(o.file, o.write, ctx, [&](const std::string& bytes) {
    warn_if_malformed(bytes, o.file, ctx);
    std::string current;
    for (std::size_t i = 0; i < o.items.size(); ++i) {
      const std::string& key = o.items[i];
      bool removed = false;
      current = vmx_unset(i == 0 ? std::string_view(bytes) : current, key, &removed);
      if (!removed) {
        ctx.err << "vmxkit: " << display_name(o.file) << ": no key '" << key << "' to remove\n";
      }
    }
    return current;
  });
  return kExitClean;
}

}  // namespace

void setup_set(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<EditOptions>();
  auto* sub = app.add_subcommand(
      "set",
      "Set KEY=VALUE: an existing key keeps its spelling, quoting, comment and line "
      "ending; a new key goes beside the keys sharing its prefix");
  sub->add_option("FILE", o->file, "A .vmx file, or - for stdin")->required();
  sub->add_option("KEY=VALUE", o->items, "Settings; VALUE is the plain value (vmxkit escapes it)")
      ->required();
  add_write_options(*sub, o->write);
  sub->callback([o, &ctx] { ctx.exit_code = run_set(*o, ctx); });
}

void setup_unset(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<EditOptions>();
  auto* sub = app.add_subcommand("unset", "Remove every line of KEY (in any letter case)");
  sub->add_option("FILE", o->file, "A .vmx file, or - for stdin")->required();
  sub->add_option("KEY", o->items, "Keys to remove")->required();
  add_write_options(*sub, o->write);
  sub->callback([o, &ctx] { ctx.exit_code = run_unset(*o, ctx); });
}

}  // namespace vmxkit::cli
