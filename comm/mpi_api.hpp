#pragma once
// The one place that knows which Open MPI it is built against, by Open MPI's own OMPI_MAJOR_VERSION
// (mpi.h): Debian 12 ships 4.1.4, Debian 13 5.0.7.
#include <mpi.h>

#include <cstdlib>

namespace rigcheck::comm::mpi_api {

// Before MPI_Init, for the TCP transport. Open MPI 5 pairs two ranks' TCP interfaces through its
// `reachable` framework, whose default component (netlink) finds no pairing between two ranks of one
// machine (a route from an interface's own address to itself leaves by lo): MPI_Init fails with
// "Unable to find reachable pairing between local and remote interfaces". The `weighted` component
// pairs them, and pairs interfaces across machines too. An OMPI_MCA_reachable the user set wins.
inline void tcp_environment() {
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
  setenv("OMPI_MCA_reachable", "weighted", 0);
#endif
}

}  // namespace rigcheck::comm::mpi_api
