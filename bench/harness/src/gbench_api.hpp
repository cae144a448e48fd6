#pragma once
// The one place that knows which Google Benchmark it is built against. Debian 12 ships 1.7.1, whose
// BenchmarkReporter::Run says a repetition did not run through `bool error_occurred`; 1.8 replaced
// it with `skipped` (an enum: not skipped, skipped with a message, skipped with an error). Neither
// header defines a version macro, so the member itself is detected here, at compile time.
#include <benchmark/benchmark.h>

#include <type_traits>
#include <utility>

namespace rigcheck::gbench_api {

namespace detail {
template <class R, class = void>
struct has_skipped : std::false_type {};
template <class R>
struct has_skipped<R, std::void_t<decltype(std::declval<const R&>().skipped)>> : std::true_type {};
}  // namespace detail

// Whether Google Benchmark reports `run` as not run (the case called SkipWithError, or, from 1.8,
// SkipWithMessage): such a repetition has no timing to record.
template <class Run = benchmark::BenchmarkReporter::Run>
bool not_run(const Run& run) {
  if constexpr (detail::has_skipped<Run>::value)
    return static_cast<int>(run.skipped) != 0;
  else
    return run.error_occurred;
}

}  // namespace rigcheck::gbench_api
