// A loaded run without its result rows (LoadedRun less data.results), as text: what history, noise
// and ab keep of a run (load_runs_for drops the rows), so that the results store can keep it beside
// the run's files at import and those commands read a stored run without parsing its CSV text again
// (docs/store.md, "Digests"). Its key names the format and the rules it was built under: a digest
// whose key is not today's is not used (the run's files are read instead), so a digest never gives
// another answer than the files would.
#pragma once
#include <string>

#include "rigcheck/compare/compare.hpp"

namespace rigcheck {

// Bump when load_run or build_cases turn the same files into other cases or facts
// (RunDigest.KeyGuardsTheCode fails until this is bumped and its recorded hash renewed).
inline constexpr int kRunDigestFormat = 4;
// "digest 1 SHA-256": the format and a hash of the rules (params, metrics and benchmarks registries,
// and the suite's renames) the cases were built under.
std::string run_digest_key(const CaseRules& rules);
// Everything of `r` but dir, label, data.dir, data.integrity.dir (where the run is read from) and
// data.results (the rows). Length-prefixed text: any bytes of the run's strings, no NUL added.
std::string encode_run_digest(const LoadedRun& r);
// The run back, `dir` standing for its folder (label: its last part). Throws std::runtime_error
// naming what is malformed.
LoadedRun decode_run_digest(const std::string& body, const std::string& dir);

}  // namespace rigcheck
