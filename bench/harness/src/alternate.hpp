// Two processes of one benchmark binary taking turns, repetition by repetition (`--alternate-env
// VAR=VALUE`): for a comparison whose two sides cannot share a process (oneDNN fixes its ISA cap
// once per process, docs/machines.md), so that drift of the machine lands in both sides of a ratio
// alike, as Google Benchmark's random interleaving does within one process. The process the runner
// started (the first side) starts a second one of the same binary with VAR=VALUE added to its
// environment (the second side, which goes first); the two pass a token over a pair of pipes, so
// that only the holder runs: second side's round 0, first side's round 0, second side's round 1...
// Each makes and checks its own kernels in its first turn. The second side writes its CSV in a
// scratch folder ($TMPDIR/rigcheck-alternate-*, registered for the runner's clean-up); the first
// relays its new rows into its own CSV each time the turn comes back, so one result file holds both
// sides, in the order they ran. Every row of both sides carries `interleaved=VAR`: repetition i of a
// case on one side and of its counterpart on the other form one pair. A side that ends (or dies)
// closes its pipe and the other goes on alone; nothing waits forever.
#pragma once
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace rigcheck {

class Session;

// One side's end of the token: before_round() returns when this process may run.
class Turns {
 public:
  // `goes_first`: the first round runs without waiting.
  Turns(int read_fd, int write_fd, bool goes_first);
  ~Turns();
  Turns(const Turns&) = delete;
  Turns& operator=(const Turns&) = delete;
  // Hands the turn over after this process's previous round (not before its first) and waits
  // until the other side hands it back, or has ended. Returns true when the turn came back.
  bool before_round();
  // Closes this side's ends: the other side goes on alone.
  void close_ends();
  bool peer_alive() const { return alive_; }

 private:
  int rfd_, wfd_;
  bool first_ = true, goes_first_, alive_ = true;
};

// "R,W,KEY" of the hidden --turns option: the second side's pipe ends and the interleaved key.
struct TurnsSpec {
  int read_fd = -1, write_fd = -1;
  std::string key;
};
TurnsSpec parse_turns_spec(const std::string& s);  // throws std::invalid_argument

// The first side's view of the second: starts it, relays its rows, reaps it.
class AlternateSide {
 public:
  // `assignment`: "VAR=VALUE" (checked by check_assignment); `argv`: this process's command line;
  // `cpus`: the CPUs the second side may run on (the union of the OpenMP places: OMP_PROC_BIND has
  // bound this thread, whose mask a child would inherit, to one core); empty: inherited.
  AlternateSide(const std::string& assignment, int argc, char** argv, Session& session, const std::vector<int>& cpus);
  ~AlternateSide();
  // The variable's name: the rows' interleaved key.
  const std::string& key() const { return key_; }
  // Before each of this side's rounds (waits while the other side runs its round, then relays).
  void before_round();
  // After this side's last round: lets the other side finish alone, waits for it, relays its last
  // rows, and counts it as a failed case when it failed or died (it exits 77 when all it ran was
  // skipped: its rows say why).
  void finish();

 private:
  void relay();
  void reap();
  Session& session_;
  std::string key_, assignment_, scratch_, prog_;
  std::unique_ptr<Turns> turns_;
  pid_t pid_ = -1;
  int status_ = 0;
  size_t relayed_ = 0;
};

// Throws std::invalid_argument unless `s` is VAR=VALUE with a name of letters, digits, '_'.
void check_assignment(const std::string& s);

}  // namespace rigcheck
