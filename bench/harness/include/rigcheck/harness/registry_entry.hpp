// What the benchmark registry (data/benchmarks.csv) says of a binary's entries, declared in the
// binary's source beside its registration; `BINARY --describe` prints them (Session::parse, before
// anything else: no MPI, GPU or scratch space needed), and scripts/registry.sh writes the registry
// from what the built binaries print. The two measured reference times (quick_ref_s, full_ref_s) stay
// in the file: the script keeps them by name.
#pragma once
#include <initializer_list>
#include <string>

namespace rigcheck {

struct RegistryEntry {
  // In data/benchmarks.csv's column order; the binary is the one declaring it.
  std::string name;   // unique in the registry
  std::string area;   // cpu, memory, io, comm, gpu
  std::string args;   // added to the command line (@launcher: started under the MPI launcher)
  std::string env;    // VAR=value pairs, space-separated
  std::string needs;  // what the machine must have, ';'-separated (runfolder/needs.hpp)
  // Seconds per profile (tiny, quick, full); 0: not part of that profile.
  int timeout_tiny_s = 0, timeout_quick_s = 0, timeout_full_s = 0;
  std::string description;    // what it measures and for which claims
  bool takes_budget = false;  // the binary keeps --time-budget
};
// Declares one entry of this binary; use at namespace scope: static const bool e = declare_entry({...});
bool declare_entry(RegistryEntry e);
// Declares benchmark names (the CSV's `benchmark` column) this binary writes beyond those it registers
// with the harness (register_benchmark declares its own): a main() of its own, a derived row's name.
bool declare_writes(std::initializer_list<const char*> benchmarks);
// One row of docs/benchmarks.md's table, declared beside the entries: the first cell is the binary's
// name in backticks, followed by ` (variant)` when the variant is not empty (a second row for a variant
// entry); what and claims are the other two cells, Markdown kept. No cell holds a '|'.
struct DocRow {
  std::string variant;  // empty for the binary's own row
  std::string what;     // what it measures
  std::string claims;   // the claims of the guide it feeds
};
// Declares one row of the table; rows keep their declaration order: static const bool d = declare_doc({...});
bool declare_doc(DocRow row);
// data/benchmarks.csv's header.
inline constexpr char kRegistryHeader[] =
    "name,area,binary,args,env,needs,timeout_tiny_s,timeout_quick_s,timeout_full_s,description,quick_ref_s,"
    "takes_budget,full_ref_s";
// What --describe prints for `binary`: the header, one row per declared entry with the reference
// times empty, then a line "# writes: NAME" per benchmark name it writes, then a line "# doc: | ... |" per
// declared row of docs/benchmarks.md's table.
std::string describe(const std::string& binary);

}  // namespace rigcheck
