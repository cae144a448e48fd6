// MPI helpers both all-reduce binaries use (the NCCL one only when built with MPI).
#pragma once
#include <mpi.h>

namespace rigcheck::comm {

// This rank's index among the ranks on its own machine (the ranks that share memory with it).
inline int mpi_local_rank(int world_rank) {
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &local);
  int r = 0;
  MPI_Comm_rank(local, &r);
  MPI_Comm_free(&local);
  return r;
}

}  // namespace rigcheck::comm
