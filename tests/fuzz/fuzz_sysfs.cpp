// SPDX-License-Identifier: Apache-2.0
// sysfs tree fuzzer for pci::load_sysfs: the input bytes are a list of entries
// (regular file with content, symbolic link, FIFO, directory) laid out like /sys: a
// `devices/<bdf>` entry per device (as /sys/bus/pci/devices has), the directories it links to
// under `real/pci0000:00/...` (as /sys/devices has), and attributes in either (vendor, device,
// class, config, numa_node, resource, driver, iommu_group, infiniband/, sriov_*, link speeds).
// The tree is built in a fresh temporary directory, loaded, finalized, analysed and rendered,
// then removed. Any tree either loads or throws vmxkit::Error; no crash, hang (a FIFO must never
// be opened), leak, sanitizer report or other exception.
//
// Input: records of [kind][location][attribute] and then, for a file, [length][bytes...]; for a
// link, [target location][target attribute]. kind % 4: 0 file, 1 link, 2 FIFO, 3 directory.
// Entries are created at their literal paths (never through a link the input made), so the tree
// stays inside the temporary directory; link targets are absolute paths inside it or /dev/null.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "vmxkit/analysis/topology.h"
#include "vmxkit/core/error.h"
#include "vmxkit/formats/host/load.h"
#include "vmxkit/model/host.h"
#include "vmxkit/report/topology_text.h"

namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 4> kBdfs = {"0000:00:01.0", "0000:01:00.0", "0000:01:00.1",
                                                   "0000:02:00.0"};
constexpr std::array<std::string_view, 20> kAttributes = {"",
                                                          "vendor",
                                                          "device",
                                                          "class",
                                                          "config",
                                                          "numa_node",
                                                          "resource",
                                                          "driver",
                                                          "iommu_group",
                                                          "infiniband",
                                                          "mlx5_0",
                                                          "sriov_totalvfs",
                                                          "sriov_numvfs",
                                                          "sriov_offset",
                                                          "sriov_stride",
                                                          "sriov_vf_device",
                                                          "current_link_speed",
                                                          "current_link_width",
                                                          "max_link_speed",
                                                          "subsystem_vendor"};
constexpr std::size_t kMaxEntries = 48;

// The places an entry may be created at, relative to the tree's root.
std::vector<std::string> locations() {
  std::vector<std::string> out = {"devices", "real/pci0000:00"};
  for (const std::string_view b : kBdfs) {
    out.push_back("devices/" + std::string(b));
    out.push_back("real/pci0000:00/" + std::string(b));
    out.push_back("real/pci0000:00/0000:00:01.0/" + std::string(b));
    out.push_back("devices/" + std::string(kBdfs[1]) + "/infiniband/" + std::string(b));
  }
  return out;
}

// Reads the input's bytes in order; past the end, zeros.
struct Reader {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t pos = 0;
  bool done() const { return pos >= size; }
  std::uint8_t byte() { return pos < size ? data[pos++] : 0; }
};

// The temporary tree, removed with everything in it (links are removed, not followed).
class TempTree {
 public:
  // Under $TMPDIR, else /dev/shm (tmpfs: some 20 times the runs per second of a disk), else /tmp.
  TempTree() {
    const char* env = std::getenv("TMPDIR");
    const bool from_env = env != nullptr && *env != '\0';
    std::string base = from_env ? env : "/tmp";
    if (!from_env && ::access("/dev/shm", W_OK | X_OK) == 0) base = "/dev/shm";
    std::string tmpl = base + "/vmxkit-fuzz-sysfs-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    root_ = tmpl;
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  const fs::path& root() const { return root_; }

 private:
  fs::path root_;
};

// Opens the directory `rel` under `root_fd`, creating missing components as directories and
// never following a link; -1 when a component exists and is not a directory.
int open_parent(int root_fd, const fs::path& rel) {
  int fd = ::dup(root_fd);
  for (const fs::path& part : rel) {
    if (fd < 0) return -1;
    const std::string name = part.string();
    if (name.empty() || name == "." || name == "..") continue;
    if (::mkdirat(fd, name.c_str(), 0755) != 0 && errno != EEXIST) {
      ::close(fd);
      return -1;
    }
    const int next = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    ::close(fd);
    fd = next;
  }
  return fd;
}

// Creates one entry; quietly does nothing when its place is taken or not a directory.
void create_entry(int root_fd, const fs::path& root, const std::string& rel, int kind,
                  const std::string& content, const std::string& target) {
  const fs::path path(rel);
  const int dir = open_parent(root_fd, path.parent_path());
  if (dir < 0) return;
  const std::string name = path.filename().string();
  switch (kind) {
    case 0: {
      const int f =
          ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (f >= 0) {
        if (!content.empty() && ::write(f, content.data(), content.size()) < 0) std::abort();
        ::close(f);
      }
      break;
    }
    case 1: {
      const std::string to = target.empty() ? "/dev/null" : (root / target).string();
      (void)::symlinkat(to.c_str(), dir, name.c_str());
      break;
    }
    case 2:
      (void)::mkfifoat(dir, name.c_str(), 0644);
      break;
    default:
      (void)::mkdirat(dir, name.c_str(), 0755);
      break;
  }
  ::close(dir);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> kLocations = locations();
  Reader in{data, size};
  TempTree tree;
  const int root_fd = ::open(tree.root().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) std::abort();
  for (std::size_t n = 0; n < kMaxEntries && !in.done(); ++n) {
    const int kind = in.byte() % 4;
    const std::string& location = kLocations[in.byte() % kLocations.size()];
    const std::string_view attribute = kAttributes[in.byte() % kAttributes.size()];
    const std::string rel = attribute.empty() ? location : location + "/" + std::string(attribute);
    std::string content;
    std::string target;
    if (kind == 0) {
      // A length byte; 255 asks for a file over the loader's 64 KiB cap.
      const std::size_t len = in.byte();
      if (len == 255) {
        content.assign((std::size_t{64} << 10) + 1, '0');
      } else {
        for (std::size_t i = 0; i < len && !in.done(); ++i) content += static_cast<char>(in.byte());
      }
    } else if (kind == 1) {
      const std::uint8_t to = in.byte();
      const std::string_view to_attr = kAttributes[in.byte() % kAttributes.size()];
      if (to != 255) {
        target = kLocations[to % kLocations.size()];
        if (!to_attr.empty()) target += "/" + std::string(to_attr);
      }
    }
    create_entry(root_fd, tree.root(), rel, kind, content, target);
  }
  ::close(root_fd);

  try {
    vmxkit::pci::Host host;
    // load_sysfs, not load_source: a HOST that is a FIFO is read as a file (`<(lspci -vvv)`).
    vmxkit::pci::load_sysfs(host, (tree.root() / "devices").string());
    host.finalize();
    const vmxkit::pci::Topology topo = vmxkit::pci::analyze(host, {});
    const std::string rendered = vmxkit::report::render_topology_text(host, topo);
    (void)rendered;
    for (std::size_t i = 0; i < host.devices().size(); ++i) (void)host.describe(i);
    for (const auto& warning : host.warnings()) (void)warning.to_string();
  } catch (const vmxkit::Error&) {
  }
  return 0;
}
