// How the results store keeps a run folder's files so that it can give them back byte for byte
// (docs/store.md): a CSV file as its records, each record's bytes as they were (its line ending
// included), in order, so that their concatenation is the file; the columns queries select on are
// parsed from each record beside it. And what names a machine and a run.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace rigcheck {

// The records of a CSV text: a record ends at a line feed outside quotes and keeps it ("\r\n" too);
// the last one may lack it. Concatenated they give the text back exactly.
std::vector<std::string> split_csv_records(const std::string& text);
// The fields of one record (RFC 4180: quoted fields, "" inside quotes, line breaks inside quotes);
// its line ending is not part of the last field.
std::vector<std::string> csv_record_fields(const std::string& record);

// A machine as the store names it: the SHA-256 of a canonical text of its inventory facts (CPU
// model, physical cores, memory in GiB, the GPUs' names and memory): two runs of the same
// hardware share it, whatever the host is called, the kernel or the drivers.
struct MachineFacts {
  std::string cpu_model, physical_cores, memory_gib, gpus;  // gpus: "2 x NVIDIA H200 (141 GiB)" or "none"
  std::string canonical;                                    // the text hashed, one fact a line
  std::string fingerprint;                                  // 64 lowercase hex digits
};
MachineFacts machine_facts(const std::map<std::string, std::string>& inventory);

// A run as the store names it: the SHA-256 of its folder's name, the host and the inventory's
// start time, one a line. Adding the same folder again finds it; a copy under another name is
// another run.
std::string run_identity(const std::string& folder_name, const std::string& hostname, const std::string& started_utc);

}  // namespace rigcheck
