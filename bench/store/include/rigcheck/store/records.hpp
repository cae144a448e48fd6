// How the results store keeps a run folder's files so that it can give them back byte for byte
// (docs/store.md): a CSV file as its records, each record's bytes as they were (its line ending
// included), in order, so that their concatenation is the file; the columns queries select on are
// parsed from each record beside it. And what names a machine and a run.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "rigcheck/runfolder/machine_identity.hpp"

namespace rigcheck {

// The records of a CSV text: a record ends at a line feed outside quotes and keeps it ("\r\n" too);
// the last one may lack it. Concatenated they give the text back exactly.
std::vector<std::string> split_csv_records(const std::string& text);
// The fields of one record (RFC 4180: quoted fields, "" inside quotes, line breaks inside quotes);
// its line ending is not part of the last field.
std::vector<std::string> csv_record_fields(const std::string& record);

// A run as the store names it: the SHA-256 of its folder's name, the host and the inventory's
// start time, one a line. Adding the same folder again finds it; a copy under another name is
// another run.
std::string run_identity(const std::string& folder_name, const std::string& hostname, const std::string& started_utc);

}  // namespace rigcheck
