// `rigcheck export`: one run in the formats the tools teams already watch read (docs/exports.md; each
// format is one file, bench/report/src/export_FORMAT.cpp, that registers itself).
// Each is made from a run read strictly (read_run: a broken folder is refused as everywhere else)
// and its verdicts judged as `rigcheck report` judges them; nothing is written into the run folder.
// The functions take the run as data (ExportInput), so a store holding runs can call them too.
#pragma once
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rigcheck/claims/claim.hpp"

namespace rigcheck {

// A run and its verdicts (one per claim, in the claims' order).
struct ExportInput {
  RunData run;
  std::string run_id;  // the run folder's name
  std::vector<Claim> claims;
  std::vector<Verdict> verdicts;
};
// Reads the run folder (read_run; throws InputError for a broken one) and judges every claim of the
// registry (claims_path; empty: data/claims.csv), writing nothing.
ExportInput read_export_input(const std::string& run_dir, const std::string& claims_path = "");

// The formats, one row each: the name --format takes, what reads it (the help text), the writer. The
// CLI's choices and help come from this table. A format adds its row from its own file, at start-up:
//   const bool registered = register_exporter({"name", "what reads it", write_function});
// (the report layer is compiled as objects, so a file nothing calls is still linked).
struct Exporter {
  const char* name;
  const char* reader;
  std::string (*write)(const ExportInput& in);
};
bool register_exporter(const Exporter& e);
// Every registered format, by name.
const std::vector<Exporter>& exporters();
// The row named `name`, or nullptr.
const Exporter* find_exporter(const std::string& name);

// The escapings the formats need (each tested on quotes, backslashes, line breaks and Chinese text):
// a Prometheus/OpenMetrics label value (\\, \" and \n escaped; UTF-8 kept);
std::string openmetrics_label_value(const std::string& s);
// a metric or label name: every character outside [a-zA-Z0-9_] becomes '_', and a leading digit
// gets a '_' before it;
std::string openmetrics_name(const std::string& s);
// XML character data and attribute values: & < > " ' as entities, the characters XML 1.0 does not
// allow (controls other than tab, newline, carriage return) and bytes that are not UTF-8 as U+FFFD.
std::string xml_escape(const std::string& s);
// `s` with each character that `with` lists replaced by its text (a Markdown cell's '|', a label's '"').
std::string replace_chars(const std::string& s, std::initializer_list<std::pair<char, const char*>> with);

// The case's headline metric, as the report's measurement table chooses it: gflops, else gbps, else
// the first metric in a rate unit (".../s"), else the first in IOPS, else the first in a time unit
// (s, ms, us, ns); empty when the case has no ok repetition of any. `rows` are the case's rows in file order.
std::string headline_metric(const std::vector<const ResultRow*>& rows);

}  // namespace rigcheck
