// The ranks of comm_allreduce_nccl as one group: collectives that work with and without MPI
// (--launch process bootstraps the ranks through MPI; --launch single is one process, one "rank").
// RIGCHECK_HAVE_MPI is set where the binary is built with MPI.
#pragma once
#ifdef RIGCHECK_HAVE_MPI
#include <mpi.h>
#endif

#include <cstddef>
#include <string>
#include <vector>

namespace rigcheck::comm {

// Collective helpers that work with and without MPI (single-process mode has one "rank").
struct Group {
  bool mpi = false;
  int rank = 0, size = 1, local_rank = 0;
  double max(double v) const {
#ifdef RIGCHECK_HAVE_MPI
    if (mpi) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
    return v;
  }
  double min(double v) const {
#ifdef RIGCHECK_HAVE_MPI
    if (mpi) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
#endif
    return v;
  }
  long long sum(long long v) const {
#ifdef RIGCHECK_HAVE_MPI
    if (mpi) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
#endif
    return v;
  }
  void barrier() const {
#ifdef RIGCHECK_HAVE_MPI
    if (mpi) MPI_Barrier(MPI_COMM_WORLD);
#endif
  }
  // Every rank's string, on every rank.
  std::vector<std::string> gather(const std::string& s) const {
    if (!mpi) return {s};
    std::vector<std::string> out;
#ifdef RIGCHECK_HAVE_MPI
    constexpr int k = 2048;
    std::string mine = s.substr(0, k - 1);
    mine.resize(k, '\0');
    std::vector<char> all(static_cast<size_t>(k) * size);
    MPI_Allgather(mine.data(), k, MPI_CHAR, all.data(), k, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r) out.emplace_back(all.data() + static_cast<size_t>(r) * k);
#endif
    return out;
  }
};

}  // namespace rigcheck::comm
