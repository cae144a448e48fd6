// Unit tests of the comm area's shared code: exact-sum inputs, nccl-tests formulas, the parser of
// NCCL_DEBUG=INFO lines, network counters and interfaces from fixture files.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "comm_common.hpp"

using namespace rigcheck::comm;

TEST(CommExactInputs, NonzeroQuartersAndExactSums) {
  for (int r = 0; r < 8; ++r)
    for (int64_t i = 0; i < 10000; ++i) {
      float x = exact_input(r, i);
      ASSERT_NE(x, 0.0f);
      ASSERT_LE(std::fabs(x), 512.0f);
      ASSERT_EQ(x * 4, std::floor(x * 4));
    }
  // Summed in float32 in two different orders: the same exact value as in double.
  for (int64_t i = 0; i < 1000; ++i) {
    float fwd = 0, bwd = 0;
    for (int r = 0; r < 64; ++r) fwd += exact_input(r, i);
    for (int r = 63; r >= 0; --r) bwd += exact_input(r, i);
    ASSERT_EQ(static_cast<double>(fwd), exact_sum(64, i));
    ASSERT_EQ(static_cast<double>(bwd), exact_sum(64, i));
  }
  // Ranks differ (otherwise a rank reducing only its own data would pass).
  int same = 0;
  for (int64_t i = 0; i < 1000; ++i) same += exact_input(0, i) == exact_input(1, i);
  EXPECT_LT(same, 10);
}

TEST(CommExactInputs, CountWrongFindsEveryBadElement) {
  std::vector<float> out(1000);
  for (int64_t i = 0; i < 1000; ++i) out[i] = static_cast<float>(exact_sum(3, i));
  EXPECT_EQ(count_wrong(out.data(), 1000, 3), 0);
  out[7] += 0.25f;
  out[999] = std::nanf("");
  EXPECT_EQ(count_wrong(out.data(), 1000, 3), 2);
  EXPECT_EQ(count_wrong(out.data(), 1000, 2), 1000);  // the sum of other ranks is wrong everywhere
}

TEST(CommFormulas, NcclTestsBusBandwidth) {
  EXPECT_DOUBLE_EQ(busbw_factor_allreduce(1), 0.0);
  EXPECT_DOUBLE_EQ(busbw_factor_allreduce(2), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor_allreduce(4), 1.5);
  EXPECT_DOUBLE_EQ(busbw_factor_allreduce(8), 1.75);
  EXPECT_DOUBLE_EQ(algbw_gbps(1e9, 0.5), 2.0);
  EXPECT_DOUBLE_EQ(ring_bytes_per_rank(400e6, 4), 600e6);  // NET-1: 0.6 GB per rank on 4 nodes
}

TEST(CommNcclDebug, ParsesTransportsNetworkAndVersion) {
  const std::string text =
      "gpu1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
      "gpu1:1234:1234 [0] NCCL INFO NCCL version 2.28.3+cuda13.0\n"
      "gpu1:1234:1250 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n"
      "gpu1:1234:1250 [0] NCCL INFO Using network IB\n"
      "gpu1:1234:1250 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
      "gpu1:1234:1250 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
      "gpu1:1234:1250 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via SHM/direct/direct\n"
      "gpu1:1234:1250 [1] NCCL INFO Channel 00/0 : 3[0] -> 0[0] [receive] via NET/IB/0\n"
      "gpu1:1234:1250 [1] NCCL INFO Channel 01/0 : 0[0] -> 3[0] [send] via NET/IB/0/GDRDMA\n"
      "gpu1:1234:1250 [0] NCCL INFO Connected all rings\n"
      "some unrelated line via nothing\n";
  NcclTransport t = parse_nccl_debug(text);
  EXPECT_EQ(t.network, "IB");
  EXPECT_EQ(t.version, "2.28.3+cuda13.0");
  EXPECT_EQ(t.paths.at("P2P/CUMEM/read"), 2);
  EXPECT_EQ(t.paths.at("SHM/direct/direct"), 1);
  EXPECT_EQ(t.paths.at("NET/IB/0"), 1);
  EXPECT_EQ(t.paths.at("NET/IB/0/GDRDMA"), 1);
  EXPECT_EQ(t.paths.size(), 4u);
  EXPECT_EQ(t.kinds(), "NET/IB+P2P+SHM");
  EXPECT_NE(t.summary().find("P2P/CUMEM/read x2"), std::string::npos);
  EXPECT_EQ(parse_nccl_debug("").kinds(), "unknown");
  EXPECT_EQ(parse_nccl_debug("h:1:1 [0] NCCL INFO Channel 00 : 0[1b000] -> 1[1c000] via P2P/IPC\n").kinds(), "P2P");
  EXPECT_EQ(parse_nccl_debug("h:1:1 [0] NCCL INFO Using network Socket\n").network, "Socket");
}

TEST(CommNet, ProcNetDevAndSysfs) {
  char dir[] = "/tmp/rigcheck-comm-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string d = dir;
  {
    std::ofstream f(d + "/dev");
    f << "Inter-|   Receive                                                |  Transmit\n"
         " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls "
         "carrier compressed\n"
         "    lo: 1000 10 0 0 0 0 0 0 5000 10 0 0 0 0 0 0\n"
         "  eth0: 2000 20 0 0 0 0 0 0 7000 30 0 0 0 0 0 0\n";
  }
  EXPECT_EQ(net_tx_bytes_total(d + "/dev"), 12000);
  EXPECT_EQ(net_tx_bytes_total(d + "/absent"), -1);
  mkdir((d + "/net").c_str(), 0755);
  EXPECT_EQ(network_interfaces(d + "/net"), "none");
  for (const char* n : {"lo", "eth0", "ib0"}) mkdir((d + "/net/" + n).c_str(), 0755);
  std::ofstream(d + "/net/eth0/operstate") << "up\n";
  std::ofstream(d + "/net/eth0/speed") << "10000\n";
  std::ofstream(d + "/net/ib0/operstate") << "down\n";
  std::ofstream(d + "/net/ib0/speed") << "-1\n";
  EXPECT_EQ(network_interfaces(d + "/net"), "eth0(up,10000Mb/s) ib0(down,speed unknown)");
  std::system(("rm -rf " + d).c_str());
}

TEST(CommAlgorithms, OpenMpiNames) {
  EXPECT_STREQ(ompi_allreduce_algorithm_name(0), "default");
  EXPECT_STREQ(ompi_allreduce_algorithm_name(2), "nonoverlapping");
  EXPECT_STREQ(ompi_allreduce_algorithm_name(5), "segmented_ring");
}

// The interfaces a TCP subnet of btl_tcp_if_include names on this node (the loopback's 127/8 is
// on every machine), a name taken as it is, a subnet nobody has; and the params-safe text.
TEST(CommNet, InterfacesInASubnetAndParamSafeText) {
  EXPECT_NE(interfaces_in("127.0.0.0/8").find("lo"), std::string::npos) << interfaces_in("127.0.0.0/8");
  EXPECT_EQ(interfaces_in("eth9"), "eth9");
  EXPECT_EQ(interfaces_in("0.0.0.0/32"), "none");  // no interface has the address 0.0.0.0
  EXPECT_EQ(param_safe("a;b=c,\"d\""), "a_b_c__d_");
  EXPECT_EQ(param_safe(""), "unknown");
  EXPECT_FALSE(boot_id().empty());
}

// --transport tcp on a node with only lo: the reason names what is missing and why lo does not
// do (Open MPI's tcp BTL leaves it out); an interface, or interfaces the user named, let it run.
TEST(CommNet, TcpTransportSaysItNeedsANonLoopbackInterface) {
  const std::string why = tcp_transport_missing({}, nullptr);
  EXPECT_NE(why.find("needs a non-loopback network interface"), std::string::npos) << why;
  EXPECT_NE(why.find("tcp BTL does not use lo between ranks"), std::string::npos) << why;
  EXPECT_EQ(tcp_transport_missing({}, ""), why);
  EXPECT_EQ(tcp_transport_missing({"eth0"}, nullptr), "");
  EXPECT_EQ(tcp_transport_missing({}, "lo"), "");
  for (const std::string& i : routable_interfaces()) EXPECT_NE(i, "lo");
}
