// What stores a directory's files: the mount, its file system and the block device's class
// from sysfs (NVMe, SATA SSD, HDD, virtio, tmpfs...), for IO-2.
#pragma once
#include <string>

namespace rigcheck::io {

struct DeviceInfo {
  std::string mount_point;
  std::string fstype;     // ext4, xfs, tmpfs...
  std::string source;     // /dev/vda, tmpfs...
  std::string device;     // the whole block device's name in /sys/block (vda, nvme0n1), or empty
  std::string dev_class;  // nvme optane sata_ssd sas_ssd hdd virtio virtio_scsi xen tmpfs zram loop dm md mmc usb other
  std::string model;      // from sysfs when present
  std::string rotational;  // 0 / 1 / unknown
  std::string how;         // how the class was found
};

DeviceInfo device_of(const std::string& dir);

// The guide's name for a class (IO-2's table), or empty when the guide has no row for it.
std::string guide_class_of(const std::string& dev_class);

// Reads completed on a block device so far (/sys/block/DEV/stat, field 1); -1 if unreadable.
long long device_reads_completed(const std::string& device);

}  // namespace rigcheck::io
