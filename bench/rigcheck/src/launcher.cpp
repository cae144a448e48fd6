// What starts the comm benchmarks' ranks (the launcher: mpirun, srun) and what its failures say.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

#include "rigcheck/harness/process.hpp"
#include "rigcheck/harness/topology.hpp"
#include "rigcheck/run/runner.hpp"
#include "runner_internal.hpp"

namespace rigcheck {
namespace run_detail {

// The reason a child gave: its "SKIP: ..." line, or its "FAILED: ..." lines, or its last line.
std::string reason_from_output(const std::string& tail, const char* prefix) {
  std::istringstream in(tail);
  std::string line, found, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
    if (line.rfind(prefix, 0) == 0) found += (found.empty() ? "" : " | ") + line.substr(std::strlen(prefix));
  }
  return found.empty() ? last : found;
}

// Why a launched benchmark failed: its own FAILED lines, else the launcher's last words (mpirun
// missing, a host it cannot reach, a rank that died), with the launcher named.
std::string launcher_failure(const std::string& launcher, int exit_code, const std::string& tail) {
  if (tail.find("FAILED: ") != std::string::npos) return reason_from_output(tail, "FAILED: ");
  std::istringstream in(tail);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (line.find_first_not_of(" \t-=*") != std::string::npos) lines.push_back(line);
  std::string said;
  for (size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i)
    said += (said.empty() ? "" : " | ") + lines[i];
  // A node that died: mpirun names the rank and the host ("mpirun noticed that process rank 1 with
  // PID 123 on node n2 exited on signal 9"), which leads the reason wherever it was in the tail.
  std::string dead;
  for (const std::string& l : lines)
    if (l.find("noticed that process rank") != std::string::npos && l.find(" on node ") != std::string::npos &&
        dead.find(l) == std::string::npos)
      dead += (dead.empty() ? "" : " | ") + l.substr(l.find_first_not_of(" \t"));
  if (!dead.empty())
    return fmt::format("a rank died: {} (launcher '{}' exited {}; its last words: {})", dead, launcher, exit_code,
                       said);
  // srun started the ranks without a PMI Open MPI takes (Slurm's MpiDefault=none, or --mpi=none):
  // each rank stops in MPI_Init with Open MPI's long banner; say what to do first.
  if (tail.find("direct launched using \"srun\"") != std::string::npos ||
      tail.find("not built with SLURM's PMI support") != std::string::npos)
    return fmt::format(
        "srun started the ranks without PMIx, which this Open MPI needs (\"direct launched using srun, "
        "but OMPI was not built with SLURM's PMI support\"): add --mpi=pmix to the launcher (srun "
        "--mpi=list shows what this Slurm offers) (launcher '{}' exited {}; its last words: {})",
        launcher, exit_code, said);
  return fmt::format("launcher '{}' exited {}: {}", launcher, exit_code, said.empty() ? "(no output)" : said);
}

std::string slurm_node_failure(const std::string& tail) {
  const char* job_nodes = std::getenv("SLURM_JOB_NODELIST");
  if (tail.find("DUE TO NODE FAILURE") == std::string::npos) return "";
  std::string down;
  const std::string sinfo = find_on_path("sinfo");
  if (job_nodes && !sinfo.empty()) {
    // sinfo asks slurmctld, which marked the node down before it cancelled the job. popen, not
    // run_child: the runner is stopping (a signal), and run_child would stop sinfo at once.
    std::string nodes = job_nodes;
    if (nodes.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,[]") !=
        std::string::npos)
      return "; Slurm cancelled the job: node failure";
    if (FILE* p =
            ::popen(fmt::format("timeout 10 '{}' -h -N -n '{}' -t down,drain,fail,no_respond -o '%N %E' 2>/dev/null",
                                sinfo, nodes)
                        .c_str(),
                    "r")) {
      char buf[512];
      while (std::fgets(buf, sizeof buf, p)) {
        std::string line = buf;
        while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
        if (!line.empty() && down.find(line) == std::string::npos) down += (down.empty() ? "" : ", ") + line;
      }
      ::pclose(p);
    }
  }
  return fmt::format("; Slurm cancelled the job: node failure ({})",
                     down.empty() ? "sinfo named no node down" : "down: " + down);
}

}  // namespace run_detail

int local_rank_count(int usable_cores) { return std::clamp(usable_cores, 2, kMaxLocalRanks); }

std::string local_launcher(int usable_cores, bool as_root) {
  const int n = local_rank_count(usable_cores);
  std::string l = fmt::format("mpirun -np {}", n);
  if (as_root) l += " --allow-run-as-root";  // Open MPI refuses to start as root without it
  // Open MPI counts a slot per core it sees and refuses more ranks than slots without it; the
  // ranks then share cores (busy-polling), which the rows' CPU use shows.
  if (n > usable_cores) l += " --oversubscribe";
  return l;
}

std::string default_launcher() {
  // Inside a Slurm allocation (sbatch, salloc): Slurm's own srun, one rank per task it allocated.
  if (std::getenv("SLURM_JOB_ID") && !find_on_path("srun").empty()) return "srun";
  return local_launcher(cpu_budget().usable_cores, ::geteuid() == 0);
}

}  // namespace rigcheck
