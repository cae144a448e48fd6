// `rigcheck export --format junit`: JUnit XML for CI systems (docs/exports.md): one testsuite, one
// testcase per claim of the guide. refuted: a <failure> with the evidence; not_measurable and
// no_benchmark: <skipped> with the reason; confirmed, inconclusive and predicted pass, each with its
// verdict and evidence in <system-out> (an inconclusive claim is neither confirmed nor refuted: a CI
// job fails on evidence against the guide, not on its absence).
#include <fmt/format.h>

#include "export_internal.hpp"
#include "report_internal.hpp"
#include "rigcheck/report/report_util.hpp"

namespace rigcheck {
namespace {

// The claim's evidence as lines "label: text" (report.md's evidence section), escaped.
std::string evidence_text(const Claim& c, const Verdict& v) {
  std::string s = fmt::format("{}: {}\n", c.id, verdict_label(v));
  for (const ClaimField& f : claim_fields(c, v)) s += fmt::format("{}: {}\n", f.label, f.text);
  return xml_escape(s);
}

std::string testcase(const ExportInput& in, const Claim& c, const Verdict& v) {
  const std::string title = c.id + ": " + report_detail::at_most(c.text_en, 80);
  std::string s = fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\">\n",
                              xml_escape("rigcheck." + in.run_id + ".section_" + c.section), xml_escape(title));
  const std::string summary = xml_escape(verdict_summary(c, v));
  if (v.verdict == Outcome::refuted) {
    s += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n", summary, xml_escape(verdict_label(v)),
                     evidence_text(c, v));
  } else if (v.verdict == Outcome::not_measurable || v.verdict == Outcome::no_benchmark) {
    const std::string why = v.reason.empty() ? verdict_summary(c, v) : v.reason;
    s += fmt::format("      <skipped message=\"{}: {}\"/>\n", to_string(v.verdict), xml_escape(why));
  }
  s += fmt::format("      <system-out>{}</system-out>\n    </testcase>\n", evidence_text(c, v));
  return s;
}
}  // namespace

std::string export_junit(const ExportInput& in) {
  int failures = 0, skipped = 0;
  for (const Verdict& v : in.verdicts) {
    failures += v.verdict == Outcome::refuted;
    skipped += v.verdict == Outcome::not_measurable || v.verdict == Outcome::no_benchmark;
  }
  const size_t n = std::min(in.claims.size(), in.verdicts.size());
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += fmt::format(
      "<testsuites name=\"rigcheck\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"0\">\n", n,
      failures, skipped);
  s += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"0\" "
      "timestamp=\"{}\" hostname=\"{}\">\n",
      xml_escape("rigcheck claims: " + in.run_id), n, failures, skipped,
      xml_escape(export_detail::fact(in.run, "inventory_time_utc")),
      xml_escape(export_detail::fact(in.run, "hostname")));
  s += "    <properties>\n";
  for (const char* key : {"hostname", "cpu_model", "gpu_count", "suite_commit", "method_version", "inventory_time_utc"})
    s += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", key, xml_escape(export_detail::fact(in.run, key)));
  s += fmt::format("      <property name=\"run_id\" value=\"{}\"/>\n", xml_escape(in.run_id));
  s += "    </properties>\n";
  for (size_t i = 0; i < n; ++i) s += testcase(in, in.claims[i], in.verdicts[i]);
  return s + "  </testsuite>\n</testsuites>\n";
}

const bool registered = register_exporter({"junit", "JUnit XML (CI: one test case per claim)", export_junit});

}  // namespace rigcheck
