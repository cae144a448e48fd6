#include "device.hpp"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace rigcheck::io {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s;
}

bool exists(const std::string& p) {
  struct stat sb;
  return ::stat(p.c_str(), &sb) == 0;
}

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

// mountinfo escapes spaces etc. as \040.
std::string unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 3), nullptr, 8));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

// sysfs block name for a dev_t: the whole disk (a partition's parent).
std::string block_name(unsigned maj, unsigned min) {
  std::string link = fmt::format("/sys/dev/block/{}:{}", maj, min);
  std::string real = real_path(link);
  if (real.empty()) return "";
  if (exists(link + "/partition")) real = real.substr(0, real.rfind('/'));
  return real.substr(real.rfind('/') + 1);
}

// Block devices whose class the name alone gives.
struct ByName {
  const char *prefix, *cls, *how;
};
const ByName* by_name(const std::string& n) {
  static const ByName kByName[] = {{"vd", "virtio", "name vd* (virtio-blk) in /sys/block"},
                                   {"xvd", "xen", "name xvd* (Xen virtual disk)"},
                                   {"zram", "zram", "compressed RAM block device"},
                                   {"md", "md", "Linux software RAID"},
                                   {"mmcblk", "mmc", "MMC/SD card"}};
  for (const ByName& k : kByName)
    if (n.rfind(k.prefix, 0) == 0) return &k;
  return nullptr;
}

void classify(DeviceInfo& d) {
  const std::string sys = "/sys/block/" + d.device;
  d.rotational = exists(sys + "/queue/rotational") ? read_line(sys + "/queue/rotational") : "unknown";
  d.model = read_line(sys + "/device/model");
  const std::string path = real_path(sys);
  const std::string& n = d.device;
  auto starts = [&](const char* p) { return n.rfind(p, 0) == 0; };
  if (starts("nvme")) {
    d.dev_class = d.model.find("Optane") != std::string::npos ? "optane" : "nvme";
    d.how = "name nvme* in /sys/block" + std::string(d.dev_class == "optane" ? " and model says Optane" : "");
  } else if (starts("sd") || starts("hd")) {
    const std::string vendor = read_line(sys + "/device/vendor");
    if (path.find("/usb") != std::string::npos) {
      d.dev_class = "usb";
      d.how = "sysfs path under a USB controller";
    } else if (path.find("virtio") != std::string::npos) {
      d.dev_class = "virtio_scsi";
      d.how = "sd* under a virtio controller (virtio-scsi)";
    } else if (d.rotational == "1") {
      d.dev_class = "hdd";
      d.how = "queue/rotational = 1";
    } else if (vendor == "ATA") {
      d.dev_class = d.model.find("Optane") != std::string::npos ? "optane" : "sata_ssd";
      d.how = "queue/rotational = 0 and device/vendor = ATA";
    } else {
      d.dev_class = "sas_ssd";
      d.how = fmt::format("queue/rotational = 0 and SCSI vendor '{}'", vendor);
    }
  } else if (starts("loop")) {
    d.dev_class = "loop";
    d.how = "loop device backed by " + read_line(sys + "/loop/backing_file");
  } else if (starts("dm-")) {
    d.dev_class = "dm";
    d.how = "device-mapper (" + read_line(sys + "/dm/name") + ")";
  } else if (const ByName* k = by_name(n)) {
    d.dev_class = k->cls;
    d.how = k->how;
  } else {
    d.dev_class = "other";
    d.how = "unrecognised block device name " + n;
  }
}

}  // namespace

DeviceInfo device_of(const std::string& dir) {
  DeviceInfo d;
  const std::string target = real_path(dir);
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  size_t best = 0;
  std::string best_majmin;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::vector<std::string> f;
    for (std::string w; ls >> w;) f.push_back(w);
    if (f.size() < 10) continue;
    size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash + 2 >= f.size()) continue;
    const std::string mp = unescape(f[4]);
    bool covers = mp == "/" || target == mp || target.compare(0, mp.size() + 1, mp + "/") == 0;
    if (!covers || mp.size() < best) continue;
    best = mp.size();
    d.mount_point = mp;
    best_majmin = f[2];
    d.fstype = f[dash + 1];
    d.source = unescape(f[dash + 2]);
  }
  if (d.fstype == "tmpfs" || d.fstype == "ramfs") {
    d.dev_class = "tmpfs";
    d.how = d.fstype + " (RAM) mounted at " + d.mount_point;
    d.rotational = "0";
    return d;
  }
  unsigned maj = 0, min = 0;
  if (std::sscanf(best_majmin.c_str(), "%u:%u", &maj, &min) == 2 && maj != 0) d.device = block_name(maj, min);
  if (d.device.empty() && d.source.rfind("/dev/", 0) == 0) {
    struct stat sb;
    if (::stat(d.source.c_str(), &sb) == 0 && S_ISBLK(sb.st_mode))
      d.device = block_name(major(sb.st_rdev), minor(sb.st_rdev));
  }
  if (d.device.empty()) {
    d.dev_class = d.fstype.empty() ? "unknown" : "other";
    d.how = fmt::format("no block device behind {} ({} from {})", d.mount_point, d.fstype, d.source);
    d.rotational = "unknown";
    return d;
  }
  classify(d);
  return d;
}

std::string guide_class_of(const std::string& c) {
  if (c == "sata_ssd") return "SATA SSD";
  if (c == "nvme") return "NVMe SSD";
  if (c == "optane") return "Optane";
  if (c == "tmpfs" || c == "zram") return "RAM disk";
  return "";
}

long long device_reads_completed(const std::string& device) {
  if (device.empty()) return -1;
  std::ifstream in("/sys/block/" + device + "/stat");
  long long reads = -1;
  if (!(in >> reads)) return -1;
  return reads;
}

}  // namespace rigcheck::io
