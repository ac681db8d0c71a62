// SPDX-License-Identifier: Apache-2.0
// NCCL's INFO log (NCCL_DEBUG=INFO): what NCCL says it decided, line by line, as printed. The
// formats are NCCL's own, with the versions that changed them (github NVIDIA/nccl, tags v2.4.8-1
// to v2.30.7-1, commit 5067397c): src/init.cc (version, "Using network"), src/graph/paths.cc
// (ncclGetLevel, ncclTopoCheckGdr), src/misc/param.cc (ncclLoadParam), src/graph/topo.cc and
// net_ib (the HCA's GPU Direct RDMA), src/transport/net_ib/init.cc and net_socket.cc ("Using"),
// src/transport/net.cc, p2p.cc, shm.cc (channels), src/graph/search.cc (ncclTopoPrintGraph).
// docs/guest-check.md, "NCCL's log", lists them.
#include <algorithm>

#include "vmxkit/core/text.h"
#include "vmxkit/formats/guest/loaders.h"

namespace vmxkit::guest {
namespace {

bool has(std::string_view hay, std::string_view needle) {
  return hay.find(needle) != std::string_view::npos;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The leading digits of `s` as a number, advancing `s` past them; nullopt when none.
std::optional<int> take_int(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && n < 9 && is_digit(s[n])) ++n;
  if (n == 0) return std::nullopt;
  int v = 0;
  for (std::size_t i = 0; i < n; ++i) v = v * 10 + (s[i] - '0');
  s.remove_prefix(n);
  return v;
}

// The text after `key` up to the next space (or the end); empty when `key` is not there.
std::string_view word_after(std::string_view s, std::string_view key) {
  const auto at = s.find(key);
  if (at == std::string_view::npos) return {};
  s.remove_prefix(at + key.size());
  return s.substr(0, s.find(' '));
}

// The message of a log line: what follows "NCCL INFO " (or the whole line, for the version
// line that NCCL before 2.12 printed with printf).
std::string_view message(std::string_view line) {
  for (const std::string_view tag : {" NCCL INFO ", " NCCL WARN "}) {
    const auto at = line.find(tag);
    if (at != std::string_view::npos) return trim(line.substr(at + tag.size()));
  }
  return trim(line);
}

// "gpu-vm:4123:4135 [0] NCCL INFO ...": the host name, before the first ':'.
std::string host_of(std::string_view line) {
  const auto colon = line.find(':');
  return colon == std::string_view::npos ? std::string() : std::string(trim(line.substr(0, colon)));
}

// Where a line is: its file and line, and the host that printed it.
struct Where {
  pci::Origin origin;
  std::string host;
};

// "NCCL_NET_GDR_LEVEL set by environment to PHB"; ncclLoadParam ends the number with '.'.
void env_line(NcclLog& log, std::string_view m, const pci::Origin& where) {
  constexpr std::string_view kSet = " set by environment to ";
  const auto at = m.find(kSet);
  if (at == std::string_view::npos || !m.starts_with("NCCL_")) return;
  const std::string_view name = m.substr(0, at);
  if (name.find(' ') != std::string_view::npos) return;
  std::string_view value = trim(m.substr(at + kSet.size()));
  if (value.size() > 1 && value.back() == '.' &&
      std::all_of(value.begin(), value.end() - 1, [](char c) { return is_digit(c) || c == '-'; })) {
    value.remove_suffix(1);
  }
  log.env.try_emplace(std::string(name), Fact{std::string(value), where});
}

// " [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ..." -> the devices.
void ib_using(NcclLog& log, std::string_view list, const pci::Origin& where) {
  log.ib_using = where;
  list = list.substr(0, list.find(';'));
  for (std::string_view w : split_any(list, " ")) {
    if (!w.starts_with("[")) continue;
    w.remove_prefix(1);
    const auto index = take_int(w);
    if (!index || !w.starts_with("]")) continue;
    w.remove_prefix(1);
    const auto colon = w.find(':');
    if (colon == 0 || colon == std::string_view::npos) continue;
    std::string_view link =
        w.substr(w.find('/') == std::string_view::npos ? w.size() : w.find('/'));
    if (!link.empty()) link.remove_prefix(1);
    link = link.substr(0, link.find('/'));
    log.ib_devices.push_back(NcclNetDevice{static_cast<unsigned>(*index),
                                           std::string(w.substr(0, colon)), std::string(link)});
  }
}

// "... (distance 8 > 5)" / "(distance 4 <= 5), read 1" / 2.29's "(rank 0) - NET/0-0 (distance".
bool distance(std::string_view m, NcclGdrLine& out) {
  const auto at = m.find("distance ");
  if (at == std::string_view::npos) return false;
  std::string_view s = m.substr(at + 9);
  const auto d = take_int(s);
  if (!d) return false;
  s = trim(s);
  while (!s.empty() && (s.front() == '<' || s.front() == '>' || s.front() == '='))
    s.remove_prefix(1);
  s = trim(s);
  const auto l = take_int(s);
  if (!l) return false;
  out.distance = *d;
  out.level = *l;
  return true;
}

// "GPU Direct RDMA Disabled for GPU ca000 / HCA 0 (distance 7 > 4)" and its variants.
void gdr_line(NcclLog& log, std::string_view m, const Where& where) {
  const bool enabled = has(m, "GPU Direct RDMA Enabled for ");
  const auto at = m.find(enabled ? "Enabled for " : "Disabled for ");
  if (at == std::string_view::npos) return;
  std::string_view rest = m.substr(at + (enabled ? 12 : 13));
  NcclGdrLine g;
  g.enabled = enabled;
  g.where = where.origin;
  g.host = where.host;
  if (rest.starts_with("GPU/")) {  // 2.29: "GPU/0-1 (rank 0) - NET/0-0 (distance ...)"
    g.gpu = std::string(word_after(rest, "(rank "));
    if (!g.gpu.empty() && g.gpu.back() == ')') g.gpu.pop_back();
    g.gpu_is_rank = true;
    g.hca = std::string(word_after(rest, "NET/"));
  } else if (rest.starts_with("GPU ")) {
    g.gpu = std::string(word_after(rest, "GPU "));
    g.hca = std::string(word_after(rest, "HCA "));
  } else {
    return;
  }
  if (!distance(rest, g)) return;
  log.gdr.push_back(std::move(g));
}

// "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'" (with " (no module)" before 2.13).
void hca_line(NcclLog& log, std::string_view m, const pci::Origin& where) {
  std::string_view s = m.substr(m.find(" for HCA ") + 9);
  const auto index = take_int(s);
  const auto q1 = s.find('\'');
  if (!index || q1 == std::string_view::npos) return;
  const auto q2 = s.find('\'', q1 + 1);
  if (q2 == std::string_view::npos) return;
  log.hca_gdr.push_back(NcclHcaGdrLine{has(m, "GPU Direct RDMA Enabled"),
                                       static_cast<unsigned>(*index),
                                       std::string(s.substr(q1 + 1, q2 - q1 - 1)), where});
}

// "NET/IB/0/GDRDMA", "NET/AWS Libfabric/1(3)/GDRDMA/Shared": the plugin's name and device.
void net_via(std::string_view via, NcclChannelLine& c) {
  std::string_view rest = via.substr(4);
  for (std::size_t i = 0; i + 1 < rest.size(); ++i) {
    if (rest[i] != '/' || !is_digit(rest[i + 1])) continue;
    std::string_view after = rest.substr(i + 1);
    const auto dev = take_int(after);
    if (!after.empty() && after.front() != '/' && after.front() != '(') continue;
    c.net = std::string(rest.substr(0, i));
    c.net_dev = static_cast<unsigned>(*dev);
    break;
  }
  c.gdr = has(via, "/GDRDMA");
}

// "Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA" (and "Ring 00 : ...").
void channel_line(NcclLog& log, std::string_view m, const Where& at) {
  std::string_view s = m.substr(m.starts_with("Ring ") ? 5 : 8);
  const auto channel = take_int(s);
  const auto colon = s.find(" : ");
  const auto arrow = s.find(" -> ");
  const auto via = s.find(" via ");
  if (!channel || colon == std::string_view::npos || arrow == std::string_view::npos ||
      via == std::string_view::npos || arrow < colon || via < arrow) {
    return;
  }
  NcclChannelLine c;
  c.channel = static_cast<unsigned>(*channel);
  c.from = std::string(trim(s.substr(colon + 3, arrow - colon - 3)));
  std::string_view to = trim(s.substr(arrow + 4, via - arrow - 4));
  if (to.ends_with("[send]") || to.ends_with("[receive]")) {
    c.direction = to.ends_with("[send]") ? "send" : "receive";
    to = trim(to.substr(0, to.rfind('[')));
  }
  c.to = std::string(to);
  c.via = std::string(trim(s.substr(via + 5)));
  if (c.via.starts_with("NET/")) net_via(c.via, c);
  c.where = at.origin;
  c.host = at.host;
  log.channels.push_back(std::move(c));
}

// "Pattern 4, crossNic 0, nChannels 2, bw 12.000000/12.000000, type PHB/PIX, sameChannels 1".
void graph_line(NcclLog& log, std::string_view m, const pci::Origin& where) {
  std::string_view s = m.substr(8);
  const auto pattern = take_int(s);
  std::string_view n = word_after(m, "nChannels ");
  const auto channels = take_int(n);
  std::string_view type = word_after(m, " type ");
  if (!pattern || !channels || type.empty()) return;
  if (type.back() == ',') type.remove_suffix(1);
  const auto slash = type.find('/');
  NcclGraphLine g{
      *pattern, *channels, std::string(type.substr(0, slash)),
      slash == std::string_view::npos ? std::string() : std::string(type.substr(slash + 1)), where};
  log.graphs.push_back(std::move(g));
}

// "comm 0x55cc rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 1c000 commId 0x65e0 - Init START".
void rank_line(NcclLog& log, std::string_view m, const Where& at) {
  std::string_view rank = word_after(m, " rank ");
  std::string_view nvml = word_after(m, " nvmlDev ");
  const std::string_view bus = word_after(m, " busId ");
  const auto r = take_int(rank);
  const auto d = take_int(nvml);
  if (!r || !d || bus.empty()) return;
  log.ranks.push_back(NcclRankLine{*r, *d, std::string(bus), at.host, at.origin});
}

void version_line(NcclLog& log, std::string_view m, const pci::Origin& where) {
  const std::string_view v = word_after(m, "NCCL version ");
  if (!v.empty() && is_digit(v.front()) && !log.version) log.version = Fact{std::string(v), where};
}

void decision_line(NcclLog& log, std::string_view m, const Where& at) {
  const pci::Origin& where = at.origin;
  if (m.starts_with("NCCL version ")) {
    version_line(log, m, where);
  } else if (m.starts_with("NCCL_") && has(m, " set by environment to ")) {
    env_line(log, m, where);
  } else if (m.starts_with("Using network ")) {
    if (!log.network) log.network = Fact{std::string(trim(m.substr(14))), where};
  } else if (m.starts_with("NET/IB") && has(m, " : Using")) {
    if (!log.ib_using) ib_using(log, m.substr(m.find(" : Using") + 8), where);
  } else if (m.starts_with("NET/IB") && has(m, "No device found")) {
    if (!log.ib_no_device) log.ib_no_device = where;
  } else if (m.starts_with("NET/Socket : Using")) {
    if (!log.socket_using) log.socket_using = Fact{std::string(trim(m.substr(18))), where};
  } else if (has(m, "GPU Direct RDMA ") && has(m, " for HCA ") && !has(m, "distance")) {
    hca_line(log, m, where);
  } else if (has(m, "GPU Direct RDMA ") && has(m, "distance")) {
    gdr_line(log, m, at);
  } else if ((m.starts_with("Channel ") || m.starts_with("Ring ")) && has(m, " via ")) {
    channel_line(log, m, at);
  } else if (m.starts_with("Pattern ") && has(m, "nChannels")) {
    graph_line(log, m, where);
  } else if (has(m, " nvmlDev ") && has(m, " busId ") && has(m, " Init ")) {
    rank_line(log, m, at);
  } else if (has(m, "Failed to register memory with DMA-BUF")) {
    log.dmabuf_failures.push_back(Fact{std::string(m), where});
  }
}

}  // namespace

void load_nccl_decisions(NcclLog& log, std::string_view text, const std::string& path) {
  std::uint32_t n = 0;
  for (const std::string_view line : LineRange(text)) {
    ++n;
    const bool tagged = has(line, " NCCL INFO ") || has(line, " NCCL WARN ");
    const std::string_view m = message(line);
    if (!tagged && !m.starts_with("NCCL version ")) continue;  // the program's own output
    decision_line(log, m, Where{pci::Origin{path, n}, tagged ? host_of(line) : std::string()});
  }
}

}  // namespace vmxkit::guest
