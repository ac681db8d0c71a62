// SPDX-License-Identifier: Apache-2.0
// Differential check against real pciutils: config-space dumps (`lspci -xxxx` format) of
// synthetic topologies are read back by the installed `lspci -F DUMP -vvv` and `-tv`, and what
// vmxkit parses from that output must equal the topology the dump was built from.
#include <fmt/format.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>

#include "support/host_util.h"
#include "support/support.h"
#include "vmxkit/analysis/topology.h"
#include "vmxkit/formats/host/config_space.h"

using vmxkit::Bdf;
using vmxkit::pci::PathClass;
using vmxkit::pci::PortType;

namespace {

constexpr const char* kLspci = "/usr/bin/lspci";

struct Config {
  Bdf bdf;
  std::array<std::uint8_t, 4096> b{};
  std::size_t next_ext = 0x100;
  std::size_t last_ext = 0;

  void w8(std::size_t o, unsigned v) { b[o] = static_cast<std::uint8_t>(v); }
  void w16(std::size_t o, unsigned v) {
    w8(o, v & 0xff);
    w8(o + 1, v >> 8);
  }
  void w32(std::size_t o, std::uint32_t v) {
    w16(o, v & 0xffff);
    w16(o + 2, v >> 16);
  }
  // Appends an extended capability of `size` bytes; returns its offset.
  std::size_t ext(unsigned id, std::size_t size) {
    const std::size_t at = next_ext;
    if (last_ext != 0)
      w32(last_ext,
          (b[last_ext] | b[last_ext + 1] << 8 | 1u << 16) | static_cast<std::uint32_t>(at << 20));
    w32(at, id | 1u << 16);
    last_ext = at;
    next_ext += (size + 15) / 16 * 16;
    return at;
  }
};

// A function with a PCIe capability of `type` (PCIe spec port type code).
Config make(Bdf bdf, unsigned vendor, unsigned device, unsigned cls, unsigned type) {
  Config c;
  c.bdf = bdf;
  c.w16(0x00, vendor);
  c.w16(0x02, device);
  c.w16(0x04, 0x0006);
  c.w16(0x06, 0x0010);  // capability list
  c.w8(0x08, 0xa1);
  c.w16(0x0a, cls);
  c.w8(0x34, 0x40);
  c.w8(0x40, 0x10);  // PCIe
  c.w16(0x42, 2 | type << 4);
  c.w32(0x4c, 16u << 4 | 5);  // LnkCap 32GT/s x16
  c.w16(0x52, 8u << 4 | 4);   // LnkSta 16GT/s x8
  return c;
}

Config bridge(Bdf bdf, unsigned type, unsigned sec, unsigned sub,
              std::optional<unsigned> acs_ctl = {}) {
  Config c = make(bdf, 0x1000, 0xc030, 0x0604, type);
  c.w8(0x0e, 0x01);
  c.w8(0x18, bdf.bus);
  c.w8(0x19, sec);
  c.w8(0x1a, sub);
  if (acs_ctl) {
    const std::size_t a = c.ext(0x0d, 8);
    c.w16(a + 4, 0x7f);
    c.w16(a + 6, *acs_ctl);
  }
  return c;
}

Config gpu(Bdf bdf) {
  Config c = make(bdf, 0x10de, 0x2331, 0x0302, 0);
  c.w32(0x10, 0x9c000000);  // BAR0 32-bit
  c.w32(0x14, 0x0000000c);  // BAR1 64-bit prefetchable
  c.w32(0x18, 0x00000220);
  c.w16(0x2c, 0x10de);
  c.w16(0x2e, 0x1626);
  return c;
}

Config nic(Bdf bdf, bool ats, unsigned vfs) {
  Config c = make(bdf, 0x15b3, 0x1021, 0x0207, 0);
  c.w32(0x10, 0x0000000c);
  c.w32(0x14, 0x00000230);
  c.w16(0x2c, 0x15b3);
  c.w16(0x2e, 0x0040);
  const std::size_t s = c.ext(0x10, 0x40);
  c.w16(s + 0x0c, 16);
  c.w16(s + 0x0e, 16);
  c.w16(s + 0x10, vfs);
  c.w16(s + 0x14, 1);
  c.w16(s + 0x16, 1);
  c.w16(s + 0x1a, 0x101e);
  const std::size_t a = c.ext(0x0f, 8);
  c.w16(a + 6, ats ? 0x8000 : 0);
  return c;
}

std::string dump(const std::vector<Config>& devices) {
  std::string out;
  for (const Config& c : devices) {
    out += fmt::format("{} Dummy\n", c.bdf.to_string());
    for (std::size_t o = 0; o < 4096; o += 16) {
      out += fmt::format("{:02x}:", o);
      for (std::size_t i = 0; i < 16; ++i) out += fmt::format(" {:02x}", c.b[o + i]);
      out += '\n';
    }
    out += '\n';
  }
  return out;
}

std::string run(const std::string& command) {
  std::string out;
  FILE* p = ::popen((command + " 2>/dev/null").c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;)
    out.append(buf.data(), n);
  REQUIRE(::pclose(p) == 0);
  return out;
}

// Two host bridges: 0000:00 with a root port, a switch with ACS on one downstream port, a GPU and
// a NIC; 0000:80 with a root port and a second NIC without ATS.
std::vector<Config> topology() {
  return {
      make(Bdf{0, 0, 0, 0}, 0x8086, 0x09a2, 0x0600, 9),
      bridge(Bdf{0, 0, 1, 0}, 4, 1, 4),
      bridge(Bdf{0, 1, 0, 0}, 5, 2, 4, 0x0000),
      bridge(Bdf{0, 2, 0, 0}, 6, 3, 3, 0x001d),
      bridge(Bdf{0, 2, 1, 0}, 6, 4, 4, 0x0001),
      gpu(Bdf{0, 3, 0, 0}),
      nic(Bdf{0, 4, 0, 0}, true, 4),
      bridge(Bdf{0, 0x80, 2, 0}, 4, 0x81, 0x81),
      nic(Bdf{0, 0x81, 0, 0}, false, 0),
  };
}

}  // namespace

TEST_CASE("lspci -F output of synthetic config-space dumps parses back to the same topology",
          "[pci][lspci][differential]") {
  REQUIRE(std::filesystem::exists(kLspci));
  vmxkit::test::TempDir dir;
  const auto model = topology();
  vmxkit::test::write_bytes(dir / "dump.txt", dump(model));
  const std::string f = (dir / "dump.txt").string();
  const std::string verbose = run(fmt::format("{} -F {} -vvv -nn -D", kLspci, f));
  const std::string verbose_plain = run(fmt::format("{} -F {} -vvv", kLspci, f));
  const std::string tree = run(fmt::format("{} -F {} -tv", kLspci, f));
  const std::string tree_nn = run(fmt::format("{} -F {} -tvnn", kLspci, f));
  INFO(verbose);
  INFO(tree);

  const auto from_vvv = vmxkit::test::host_from({{"vvv.txt", verbose}});
  const auto from_plain = vmxkit::test::host_from({{"plain.txt", verbose_plain}});
  const auto from_tree = vmxkit::test::host_from({{"tree.txt", tree}});
  const auto from_tree_nn = vmxkit::test::host_from({{"treenn.txt", tree_nn}});
  const auto merged = vmxkit::test::host_from({{"tree.txt", tree}, {"vvv.txt", verbose}});

  for (const Config& c : model) {
    INFO(c.bdf.to_string());
    vmxkit::pci::Device want;
    vmxkit::pci::decode_config_space(std::span<const std::uint8_t>(c.b.data(), c.b.size()), want);
    for (const auto* host : {&from_vvv, &from_plain, &merged}) {
      const auto* d = host->find(c.bdf);
      REQUIRE(d != nullptr);
      CHECK(d->class_code == want.class_code);
      CHECK(d->port_type == want.port_type);
      CHECK(d->secondary_bus == want.secondary_bus);
      CHECK(d->subordinate_bus == want.subordinate_bus);
      CHECK(d->acs.has_value() == want.acs.has_value());
      if (d->acs && want.acs) CHECK(d->acs->ctl == want.acs->ctl);
      CHECK(d->ats_enabled == want.ats_enabled);
      CHECK(d->sriov.has_value() == want.sriov.has_value());
      if (d->sriov && want.sriov) {
        CHECK(d->sriov->total_vfs == want.sriov->total_vfs);
        CHECK(d->sriov->num_vfs == want.sriov->num_vfs);
        CHECK(d->sriov->vf_device_id == want.sriov->vf_device_id);
      }
      if (want.port_type != PortType::rc_integrated_endpoint) {  // lspci shows no link for these
        REQUIRE(d->link_sta);
        CHECK(d->link_sta->speed == want.link_sta->speed);
        CHECK(d->link_sta->width == want.link_sta->width);
        CHECK(d->link_cap->speed == want.link_cap->speed);
      }
    }
    CHECK(from_vvv.find(c.bdf)->vendor_id == want.vendor_id);
    CHECK(from_vvv.find(c.bdf)->device_id == want.device_id);
    if (!want.secondary_bus) {  // -t prints names and ids for leaves only
      CHECK(from_tree_nn.find(c.bdf)->device_id == want.device_id);
    }
    // The same parent whichever output it came from.
    const auto parent_of = [](const vmxkit::pci::Host& h, Bdf b) {
      const auto* d = h.find(b);
      return d && d->parent ? std::optional<Bdf>(h.at(*d->parent).bdf) : std::nullopt;
    };
    CHECK(parent_of(from_vvv, c.bdf) == parent_of(from_tree, c.bdf));
    CHECK(parent_of(merged, c.bdf) == parent_of(from_tree, c.bdf));
  }
  CHECK(from_vvv.roots().size() == 2);
  CHECK(from_tree.roots().size() == 2);
  CHECK(merged.warnings().empty());
  // GPU0 <-> NIC0 under one switch, with ACS redirect on the GPU's downstream port; NIC1 on the
  // other host bridge (no NUMA facts in a dump: unknown, not guessed).
  for (const auto* host : {&from_vvv, &merged}) {
    const auto v = vmxkit::pci::judge_pair(*host, *host->index_of(Bdf{0, 3, 0, 0}),
                                           *host->index_of(Bdf{0, 4, 0, 0}), {});
    CHECK(v.path.cls == PathClass::pix);
    REQUIRE(v.path.acs_redirect.size() == 1);
    CHECK(host->at(v.path.acs_redirect[0]).bdf == Bdf{0, 2, 0, 0});
    const auto w = vmxkit::pci::judge_pair(*host, *host->index_of(Bdf{0, 3, 0, 0}),
                                           *host->index_of(Bdf{0, 0x81, 0, 0}), {});
    CHECK(w.path.cls == PathClass::unknown);
  }
  // Tree-only input (no ids, names from the installed pci.ids) still finds the GPU and NICs.
  const auto topo = vmxkit::pci::analyze(from_tree, {});
  CHECK(topo.gpus.size() == 1);
  CHECK(topo.nics.size() == 2);
  CHECK(topo.matrix[0][1] == PathClass::pix);
}
