// SPDX-License-Identifier: Apache-2.0
// A sysfs tree laid out like /sys/bus/pci/devices: one entry per BDF with class, vendor, device,
// numa_node, resource, config, driver, iommu_group, sriov_* and infiniband/.
//
// The tree may be a capture, not the kernel's: it is read so that no input stops or crashes the
// run. Every attribute is read through its device directory's descriptor (openat), and only when
// it is a regular file, so a FIFO or device node is never opened (nothing blocks); reads stop at
// kMaxAttributeBytes (config at 4096, the size of PCIe config space). Nothing is walked
// recursively, so a symbolic link loop shows only as ELOOP. A loop, an attribute that is not a
// regular file, an oversized attribute, an entry that is not a directory and two entries naming
// one directory stop the load with a vmxkit::Error naming the path; an attribute that exists but
// cannot be read (permissions, an I/O error from the device) is skipped with a warning.
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "vmxkit/core/error.h"
#include "vmxkit/devices/catalog.h"
#include "vmxkit/formats/host/config_space.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/formats/host/text.h"
#include "vmxkit/model/host.h"

namespace vmxkit::pci {
namespace {

namespace fs = std::filesystem;

/// The most bytes read from one attribute: sysfs attributes are at most a page (4096 bytes).
constexpr std::size_t kMaxAttributeBytes = std::size_t{64} << 10;
/// PCIe extended config space is 4096 bytes (conventional PCI: 256).
constexpr std::size_t kMaxConfigBytes = 4096;

std::string errno_text(int err) { return std::generic_category().message(err); }

std::string_view file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// A file descriptor, closed on destruction.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};
using DirPtr = std::unique_ptr<DIR, DirCloser>;

// The names in an open directory, sorted, without "." and "..". Throws on a read error.
std::vector<std::string> list_names(DIR* d, const std::string& path) {
  std::vector<std::string> names;
  for (;;) {
    errno = 0;
    const dirent* e = ::readdir(d);
    if (e == nullptr) {
      if (errno != 0) throw Error(path, "cannot read directory: " + errno_text(errno));
      break;
    }
    const std::string_view name = e->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// One device directory of the tree, open, and the host its warnings go to.
class DeviceDir {
 public:
  DeviceDir(Host& host, std::string path, int fd) : host_(host), path_(std::move(path)), fd_(fd) {}

  const std::string& path() const { return path_; }
  std::string path_of(std::string_view name) const { return path_ + "/" + std::string(name); }

  // The bytes of attribute `name`; nullopt when there is none (or it cannot be read: warned).
  std::optional<std::string> read(const char* name, std::size_t max = kMaxAttributeBytes) const {
    struct stat st {};
    if (::fstatat(fd_.get(), name, &st, 0) != 0) return missing(name, errno);
    if (!S_ISREG(st.st_mode)) not_regular(name, st.st_mode);
    const Fd f(::openat(fd_.get(), name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (f.get() < 0) return missing(name, errno);
    if (::fstat(f.get(), &st) != 0) return unreadable(name, errno);
    if (!S_ISREG(st.st_mode)) not_regular(name, st.st_mode);  // replaced since the check
    std::string data(max + 1, '\0');
    std::size_t got = 0;
    while (got < data.size()) {
      const ssize_t n = ::read(f.get(), data.data() + got, data.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return unreadable(name, errno);
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    if (got > max) {
      throw Error(path_of(name), fmt::format("larger than {} bytes: not a sysfs attribute", max));
    }
    data.resize(got);
    return data;
  }

  std::optional<std::uint64_t> number(const char* name) const {
    const auto text = read(name, 64);
    if (!text) return std::nullopt;
    const std::string_view t = trim(*text);
    return parse_c_number(t.substr(0, t.find('\n')));
  }

  // The last component of where symbolic link `name` points ("nvidia" for driver ->
  // ../../../bus/pci/drivers/nvidia); empty when it is not a link. The link is not followed.
  std::string link_basename(const char* name) const {
    char buf[PATH_MAX];
    const ssize_t n = ::readlinkat(fd_.get(), name, buf, sizeof buf);
    if (n <= 0 || static_cast<std::size_t>(n) >= sizeof buf) return {};
    return fs::path(std::string(buf, static_cast<std::size_t>(n))).filename().string();
  }

  void warn(const char* name, const std::string& message) const {
    host_.warn(Origin{path_of(name), 0}, message);
  }

  // The names in subdirectory `name` (sorted); empty when there is none.
  std::vector<std::string> subdirectory(const char* name) const {
    Fd f(::openat(fd_.get(), name, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC));
    if (f.get() < 0) {
      if (errno == ENOTDIR) {
        throw Error(path_of(name), "not a directory (sysfs has a directory there)");
      }
      missing(name, errno);
      return {};
    }
    const DirPtr d(::fdopendir(f.get()));
    if (!d) {
      unreadable(name, errno);
      return {};
    }
    f.release();
    return list_names(d.get(), path_of(name));
  }

 private:
  // An attribute that could not be opened: none (ENOENT, also a dangling link), a loop (an
  // error), or unreadable (a warning). Returns nullopt for the caller to return.
  std::nullopt_t missing(const char* name, int err) const {
    if (err == ELOOP) throw Error(path_of(name), "symbolic link loop: " + errno_text(err));
    if (err == ENOENT) return std::nullopt;
    return unreadable(name, err);
  }
  std::nullopt_t unreadable(const char* name, int err) const {
    host_.warn(Origin{path_of(name), 0}, "cannot read it (" + errno_text(err) + "); ignored");
    return std::nullopt;
  }
  [[noreturn]] void not_regular(const char* name, mode_t mode) const {
    throw Error(path_of(name),
                fmt::format("{}, not a regular file: sysfs attributes are files", file_kind(mode)));
  }

  Host& host_;
  std::string path_;
  Fd fd_;
};

// "16.0 GT/s PCIe" -> "16GT/s"
std::string speed_text(std::string_view s) {
  s = trim(s);
  std::string_view num = s.substr(0, s.find(' '));
  if (num.size() > 2 && num.substr(num.size() - 2) == ".0") num.remove_suffix(2);
  return std::string(num) + "GT/s";
}

// The entry's real path shows the tree (.../pci0000:00/0000:00:01.0/0000:01:00.0): decides
// whether its parent is a bridge or a root bus, and names that root bus.
void place_by_real_path(Host& host, Device& d, const std::string& p) {
  std::error_code ec;
  const fs::path real = fs::canonical(p, ec);
  if (ec) return;
  const std::string up = real.parent_path().filename().string();
  if (const auto parent = parse_bdf(up)) {
    d.given_parent = parent;
  } else if (up.rfind("pci", 0) == 0) {
    const auto colon = up.find(':');
    const auto dom = parse_hex(up.substr(3, colon - 3));
    const auto bus = colon == std::string::npos ? std::nullopt : parse_hex(up.substr(colon + 1));
    if (dom && bus && *dom <= 0xffff && *bus <= 0xff) {
      d.given_on_root_bus = true;
      host.add_root(static_cast<std::uint16_t>(*dom), static_cast<std::uint8_t>(*bus));
    }
  }
}

// The config space (capabilities), then the ids, class and NUMA node, whose files win over
// what the config space said.
void read_identity(Device& d, const DeviceDir& dir) {
  if (const auto cfg = dir.read("config", kMaxConfigBytes)) {
    const auto* data = reinterpret_cast<const std::uint8_t*>(cfg->data());
    decode_config_space(std::span(data, cfg->size()), d);
  }
  if (const auto v = dir.number("vendor"); v && *v <= 0xffff) {
    d.vendor_id = static_cast<std::uint16_t>(*v);
  }
  if (const auto v = dir.number("device"); v && *v <= 0xffff) {
    d.device_id = static_cast<std::uint16_t>(*v);
  }
  if (const auto v = dir.number("subsystem_vendor"); v && *v <= 0xffff) {
    d.subsys_vendor_id = static_cast<std::uint16_t>(*v);
  }
  if (const auto v = dir.number("subsystem_device"); v && *v <= 0xffff) {
    d.subsys_device_id = static_cast<std::uint16_t>(*v);
  }
  if (const auto v = dir.number("class"); v && *v <= 0xffffff) {
    d.class_code = static_cast<std::uint16_t>(*v >> 8);
  }
  if (const auto text = dir.read("numa_node", 64)) {
    if (const auto n = parse_signed(trim(*text)); n && *n >= 0) d.numa_node = static_cast<int>(*n);
  }
}

// The `resource` file, one "start end flags" line per region: lines 0-5 are the BARs, 6 the
// expansion ROM (skipped), 7-12 the SR-IOV VF BARs. A region above kMaxBarBytes is skipped with
// a warning.
void read_resources(Device& d, std::string_view text, const DeviceDir& dir) {
  int i = 0;
  for (const std::string_view line : LineRange(text)) {
    const auto f = split_any(line, " ");
    if (f.size() == 3 && i != 6) {
      const auto start = parse_c_number(f[0]);
      const auto end = parse_c_number(f[1]);
      const auto flags = parse_c_number(f[2]);
      if (start && end && flags && *end > *start && *end - *start >= kMaxBarBytes) {
        dir.warn("resource", fmt::format("line {}: a region above {} (2^52 bytes); ignored", i + 1,
                                         format_size(kMaxBarBytes)));
      } else if (start && end && flags && *end > *start) {
        Bar bar;
        bar.index = i < 6 ? i : i - 7;
        bar.address = *start;
        bar.size = *end - *start + 1;
        bar.io = (*flags & 0x100) != 0;
        bar.prefetchable = (*flags & 0x2000) != 0;
        bar.is_64bit = (*flags & 0x100000) != 0;
        if (i < 6) {
          d.bars.push_back(bar);
        } else if (i >= 7 && i < 13) {
          if (!d.sriov) d.sriov = Sriov{};
          d.sriov->vf_bars.push_back(bar);
        }
      }
    }
    ++i;
  }
}

// Link speed and width (current and maximum), driver, IOMMU group and RDMA device name.
void read_links_and_driver(Device& d, const DeviceDir& dir) {
  if (const auto s = dir.read("current_link_speed", 64)) {
    if (!d.link_sta) d.link_sta = Link{};
    d.link_sta->speed = speed_text(*s);
  }
  if (const auto w = dir.number("current_link_width"); w && d.link_sta && *w <= 0xffffffffU) {
    d.link_sta->width = static_cast<unsigned>(*w);
  }
  if (const auto s = dir.read("max_link_speed", 64)) {
    if (!d.link_cap) d.link_cap = Link{};
    d.link_cap->speed = speed_text(*s);
  }
  if (const auto w = dir.number("max_link_width"); w && d.link_cap && *w <= 0xffffffffU) {
    d.link_cap->width = static_cast<unsigned>(*w);
  }
  if (std::string driver = dir.link_basename("driver"); !driver.empty())
    d.driver = std::move(driver);
  if (const auto g = parse_decimal(dir.link_basename("iommu_group")); g && *g <= INT_MAX) {
    d.iommu_group = static_cast<int>(*g);
  }
  if (const auto ib = dir.subdirectory("infiniband"); !ib.empty()) d.rdma_name = ib.front();
}

// The sriov_* files of a physical function: VF counts, offset, stride and VF device id.
void read_sriov(Device& d, const DeviceDir& dir) {
  auto small = [](std::optional<std::uint64_t> v) -> std::optional<unsigned> {
    if (!v || *v > 0xffffffffU) return std::nullopt;
    return static_cast<unsigned>(*v);
  };
  const auto t = small(dir.number("sriov_totalvfs"));
  if (!t) return;
  if (!d.sriov) d.sriov = Sriov{};
  d.sriov->total_vfs = *t;
  if (const auto n = small(dir.number("sriov_numvfs"))) d.sriov->num_vfs = *n;
  if (const auto o = small(dir.number("sriov_offset"))) d.sriov->vf_offset = *o;
  if (const auto s = small(dir.number("sriov_stride"))) d.sriov->vf_stride = *s;
  if (const auto text = dir.read("sriov_vf_device", 64)) {
    if (const auto id = parse_hex(trim(*text)); id && *id <= 0xffff) {
      d.sriov->vf_device_id = static_cast<std::uint16_t>(*id);
    }
  }
}

using FileId = std::pair<dev_t, ino_t>;

// Opens the device directory `name` of the tree. Returns nullopt (with a warning) for a dangling
// link; throws for a loop, an entry that is not a directory, and a directory already read under
// another name (`seen` maps each directory read so far to its path).
std::optional<int> open_device_dir(Host& host, int top, const std::string& name,
                                   const std::string& path, std::map<FileId, std::string>& seen) {
  Fd fd(::openat(top, name.c_str(), O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    const int err = errno;
    if (err == ENOENT) {
      host.warn(Origin{path, 0}, "a dangling symbolic link; the device is skipped");
      return std::nullopt;
    }
    if (err == ELOOP) throw Error(path, "symbolic link loop: " + errno_text(err));
    if (err == ENOTDIR) {
      throw Error(path, "not a directory (a sysfs device entry is a directory or a link to one)");
    }
    throw Error(path, "cannot open the device directory: " + errno_text(err));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw Error(path, "cannot stat: " + errno_text(errno));
  const auto [it, inserted] = seen.try_emplace(FileId{st.st_dev, st.st_ino}, path);
  if (!inserted) {
    throw Error(path, fmt::format("the same directory as {} (a link loop or a duplicated entry)",
                                  it->second));
  }
  return fd.release();
}

void load_tree(Host& host, const std::string& dir) {
  Fd top(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC));
  if (top.get() < 0) throw Error(dir, "cannot read sysfs directory: " + errno_text(errno));
  struct stat st {};
  if (::fstat(top.get(), &st) != 0) throw Error(dir, "cannot stat: " + errno_text(errno));
  std::map<FileId, std::string> seen{{FileId{st.st_dev, st.st_ino}, dir}};
  const int listing = ::dup(top.get());
  if (listing < 0) throw Error(dir, "cannot read sysfs directory: " + errno_text(errno));
  const DirPtr d(::fdopendir(listing));
  if (!d) {
    ::close(listing);
    throw Error(dir, "cannot read sysfs directory: " + errno_text(errno));
  }
  host.set_complete();
  std::size_t count = 0;
  for (const std::string& name : list_names(d.get(), dir)) {
    const auto bdf = parse_bdf(name);
    if (!bdf) continue;
    std::string path = dir;
    if (!path.ends_with('/')) path += '/';
    path += name;
    const auto fd = open_device_dir(host, top.get(), name, path, seen);
    if (!fd) continue;
    const DeviceDir device(host, path, *fd);
    const std::size_t index = host.upsert(*bdf);
    ++count;
    Device& dev = host.at(index);
    dev.origins.push_back(Origin{path, 0});
    place_by_real_path(host, dev, path);
    read_identity(dev, device);
    if (const auto text = device.read("resource")) read_resources(dev, *text, device);
    read_links_and_driver(dev, device);
    read_sriov(dev, device);
  }
  if (count == 0)
    throw Error(dir, "no PCI devices (entries named like 0000:3b:00.0) in the directory");
}

}  // namespace

void load_sysfs(Host& host, const std::string& dir) {
  try {
    load_tree(host, dir);
  } catch (const fs::filesystem_error& e) {
    // Not expected (every call above reports errors by value), but never an internal error.
    throw Error(e.path1().empty() ? dir : e.path1().string(), e.code().message());
  }
}

}  // namespace vmxkit::pci
