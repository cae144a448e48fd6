#include "pipeline.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <numeric>
#include <random>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "device.hpp"
#include "scratch.hpp"

namespace rigcheck::io {
namespace {

using Clock = std::chrono::steady_clock;
double secs(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

struct Aligned {
  explicit Aligned(size_t n) {
    if (posix_memalign(&p, 4096, std::max<size_t>(n, 4096)) != 0) throw std::bad_alloc();
    std::memset(p, 0x11, n);  // touched before any timing (first touch is slow in this VM)
  }
  ~Aligned() { free(p); }
  char* data() const { return static_cast<char*>(p); }
  void* p = nullptr;
};

struct Counters {
  std::atomic<int64_t> samples{0}, reads{0}, bytes{0}, wrong{0};
};

// Reads one sample whole into dst and checks it against the checksum recorded at creation.
void load_sample(const Dataset& d, size_t idx, char* dst, Counters& k) {
  const std::string& p = d.paths[idx];
  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | (d.direct ? O_DIRECT : 0));
  if (fd < 0) throw std::runtime_error(fmt::format("{}: open failed: {}", p, std::strerror(errno)));
  int64_t got = 0;
  while (got < d.sample_bytes) {
    ssize_t n = ::pread(fd, dst + got, static_cast<size_t>(d.sample_bytes - got), got);
    k.reads.fetch_add(1, std::memory_order_relaxed);
    if (n < 0) {
      int e = errno;
      ::close(fd);
      throw std::runtime_error(fmt::format("{}: read failed: {}", p, std::strerror(e)));
    }
    if (n == 0) break;
    got += n;
  }
  if (!d.direct) ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);  // our own file only
  ::close(fd);
  k.samples.fetch_add(1, std::memory_order_relaxed);
  k.bytes.fetch_add(got, std::memory_order_relaxed);
  if (got != d.sample_bytes || checksum64(dst, static_cast<size_t>(got)) != d.sums[idx])
    k.wrong.fetch_add(1, std::memory_order_relaxed);
}

void compute(double s, bool spin) {
  if (s <= 0) return;
  if (spin) {
    auto end = Clock::now() + std::chrono::duration<double>(s);
    volatile double x = 1;
    while (Clock::now() < end)
      for (int i = 0; i < 256; ++i) x = x * 1.0000001 + 1e-9;
    return;
  }
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  long long ns = static_cast<long long>(ts.tv_nsec) + static_cast<long long>(s * 1e9);
  ts.tv_sec += static_cast<time_t>(ns / 1000000000LL);
  ts.tv_nsec = static_cast<long>(ns % 1000000000LL);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// What the main thread and the workers share, as in PyTorch's DataLoader: an index queue per
// worker, a ready flag per step, the first error a worker met.
struct Queues {
  Queues(int workers, int steps)
      : tasks(static_cast<size_t>(std::max(1, workers))), ready(static_cast<size_t>(steps), 0) {}
  std::mutex m;
  std::condition_variable cv_task, cv_ready;
  std::vector<std::deque<int>> tasks;
  std::vector<char> ready;
  bool stop = false;
  std::string error;
};

// Worker `w`: loads the batches of the steps queued to it, in order, and marks each ready.
template <class LoadBatch>
void worker_loop(Queues& q, int w, const LoadBatch& load_batch) {
  // Signals go to the main thread, whose handler removes the scratch files (scratch.hpp).
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  while (true) {
    int step;
    {
      std::unique_lock<std::mutex> lk(q.m);
      q.cv_task.wait(lk, [&] { return q.stop || !q.tasks[w].empty(); });
      if (q.stop) return;
      step = q.tasks[w].front();
      q.tasks[w].pop_front();
    }
    try {
      load_batch(step);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lk(q.m);
      if (q.error.empty()) q.error = e.what();
    }
    {
      std::lock_guard<std::mutex> lk(q.m);
      q.ready[static_cast<size_t>(step)] = 1;
    }
    q.cv_ready.notify_all();
  }
}

}  // namespace

bool direct_io_works(const std::string& path, int64_t bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) return false;
  Aligned buf(static_cast<size_t>(bytes));
  ssize_t n = ::pread(fd, buf.data(), static_cast<size_t>(bytes), 0);
  ::close(fd);
  return n == bytes;
}

PipelineResult run_pipeline(const Dataset& d, const PipelineConfig& c, const std::string& block_device) {
  const size_t n = d.paths.size();
  const int B = c.batch;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(c.seed);
  std::shuffle(order.begin(), order.end(), rng);
  auto sample_of = [&](int step, int i) { return order[(static_cast<size_t>(step) * B + i) % n]; };

  const int inflight = c.workers > 0 ? c.workers * c.prefetch : 0;
  const int slots = inflight + 1;
  const size_t batch_bytes = static_cast<size_t>(B) * static_cast<size_t>(d.sample_bytes);
  std::vector<std::unique_ptr<Aligned>> buf;
  for (int s = 0; s < slots; ++s) buf.push_back(std::make_unique<Aligned>(batch_bytes));

  Counters k;
  PipelineResult r;
  Queues q(c.workers, c.steps);

  auto load_batch = [&](int step) {
    char* base = buf[static_cast<size_t>(step % slots)]->data();
    for (int i = 0; i < B; ++i) load_sample(d, sample_of(step, i), base + static_cast<size_t>(i) * d.sample_bytes, k);
  };

  std::vector<std::thread> threads;
  for (int w = 0; w < c.workers; ++w) threads.emplace_back([&, w] { worker_loop(q, w, load_batch); });
  auto dispatch = [&](int step) {
    if (step >= c.steps) return;
    {
      std::lock_guard<std::mutex> lk(q.m);
      q.tasks[static_cast<size_t>(step % c.workers)].push_back(step);  // round robin, as PyTorch does
    }
    q.cv_task.notify_all();
  };

  const long long dev0 = device_reads_completed(block_device);
  const auto t_run = Clock::now();
  for (int s = 0; s < inflight; ++s) dispatch(s);
  Clock::time_point t_measure = t_run;
  int64_t reads_m = 0, samples_m = 0;
  long long dev_m = dev0;
  for (int step = 0; step < c.steps; ++step) {
    if (step == c.warmup) {
      t_measure = Clock::now();
      reads_m = k.reads.load();
      samples_m = k.samples.load();
      dev_m = device_reads_completed(block_device);
    }
    const auto t0 = Clock::now();
    if (c.workers == 0) {
      load_batch(step);
    } else {
      std::unique_lock<std::mutex> lk(q.m);
      q.cv_ready.wait(lk, [&] { return q.ready[static_cast<size_t>(step)] != 0 || !q.error.empty(); });
    }
    const auto t1 = Clock::now();
    if (step >= c.warmup) r.wait_s += secs(t0, t1);
    // PyTorch sends the next index as soon as a batch arrives, before the step uses it.
    if (c.workers > 0) dispatch(step + inflight);
    compute(c.compute_s, c.spin);
  }
  const auto t_end = Clock::now();
  {
    std::lock_guard<std::mutex> lk(q.m);
    q.stop = true;
  }
  q.cv_task.notify_all();
  for (auto& t : threads) t.join();
  const long long dev1 = device_reads_completed(block_device);
  if (!q.error.empty()) throw std::runtime_error(q.error);

  r.wall_s = secs(t_measure, t_end);
  r.run_s = secs(t_run, t_end);
  r.steps = c.steps - c.warmup;
  r.samples = k.samples;
  r.reads = k.reads;
  r.bytes = k.bytes;
  r.wrong = k.wrong;
  r.checked = k.samples;
  r.device_reads = dev0 >= 0 && dev1 >= 0 ? dev1 - dev0 : -1;
  r.reads_window = k.reads - reads_m;
  r.samples_window = k.samples - samples_m;
  r.device_reads_window = dev_m >= 0 && dev1 >= 0 ? dev1 - dev_m : -1;
  return r;
}

}  // namespace rigcheck::io
