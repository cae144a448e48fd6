// Helpers shared by the files of bench/rigcheck/src (runner.cpp, recover.cpp): not part of the
// tool's interface.
#pragma once
#include <string>
#include <vector>

#include "rigcheck/run/runner.hpp"
#include "rigcheck/runfolder/run_folder.hpp"

namespace rigcheck::run_detail {

bool is_file(const std::string& p);
std::vector<std::string> split_ws(const std::string& s);
// The output file's rows and SHA-256 in its manifest row, once the benchmark has ended and its
// file is final (integrity.hpp: what report, compare and history verify).
void record_checksum(const std::string& dir, ManifestRow& m);
std::string join(const std::vector<std::string>& v);
// The words of a manifest command line (shell_quote's quoting undone, well enough for paths).
std::vector<std::string> command_words(const std::string& command);
// The reason a child gave: its "SKIP: ..." line, or its "FAILED: ..." lines, or its last line.
std::string reason_from_output(const std::string& tail, const char* prefix);
// Why a launched benchmark failed, with the launcher named (launcher.cpp).
std::string launcher_failure(const std::string& launcher, int exit_code, const std::string& tail);
// Inside a Slurm allocation whose step Slurm cancelled "DUE TO NODE FAILURE" (the launcher's output
// `tail` says so): "; Slurm cancelled the job: node failure (down: n2 Not responding)", the nodes
// of this job that sinfo reports down; "" otherwise (launcher.cpp).
std::string slurm_node_failure(const std::string& tail);

// The registry's entries that --only and --select keep, in the registry's order; 2 (a usage error,
// said on stderr) for an unknown area or benchmark or a selection that leaves nothing (runner_select.cpp).
int select_benchmarks(const RunOptions& opt, std::vector<BenchmarkEntry>* todo);
// The manifest a run starts from: every benchmark pending, so that a runner killed at any moment
// leaves a folder that says what never started.
std::vector<ManifestRow> pending_manifest(const std::vector<BenchmarkEntry>& todo);

}  // namespace rigcheck::run_detail
