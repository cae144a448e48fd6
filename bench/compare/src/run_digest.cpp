// A loaded run less its rows as length-prefixed text (run_digest.hpp). Every value is a token
// "LENGTH:BYTES"; numbers are written by std::to_chars (the shortest text that reads back to the
// same double) and read by std::from_chars, so a digest gives back the very values of the files.
#include "rigcheck/compare/run_digest.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "rigcheck/harness/sha256.hpp"
#include "rigcheck/runfolder/renames.hpp"

namespace rigcheck {
namespace {

constexpr std::string_view kMagic = "rigcheck run digest";

// A metric's repetitions, the bulk of a digest, as one token: each double's 8 bytes (IEEE 754,
// least significant first) in base64 (RFC 4648's alphabet, no padding: the count is known), 11
// characters a value where its shortest decimal text took about 17, and no number to parse.
constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string doubles_to_base64(const std::vector<double>& v) {
  std::string bytes(v.size() * 8, '\0');
  for (size_t i = 0; i < v.size(); ++i) {
    uint64_t u = 0;
    std::memcpy(&u, &v[i], 8);
    for (int b = 0; b < 8; ++b) bytes[i * 8 + static_cast<size_t>(b)] = static_cast<char>((u >> (8 * b)) & 0xff);
  }
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t x = 0;
    for (size_t k = 0; k < 3; ++k) x = x << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (size_t k = 0; k < n + 1; ++k) out += kB64[(x >> (18 - 6 * k)) & 0x3f];
  }
  return out;
}

// The inverse; false when `text` is not the base64 of `count` doubles.
bool base64_to_doubles(std::string_view text, size_t count, std::vector<double>& v) {
  static const auto table = [] {
    std::array<int8_t, 256> t{};
    t.fill(-1);
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kB64[i])] = static_cast<int8_t>(i);
    return t;
  }();
  const size_t nbytes = count * 8;
  if (text.size() != nbytes / 3 * 4 + (nbytes % 3 ? nbytes % 3 + 1 : 0)) return false;
  std::string bytes;
  bytes.reserve(nbytes + 2);
  for (size_t i = 0; i < text.size(); i += 4) {
    const size_t n = std::min<size_t>(4, text.size() - i);
    uint32_t x = 0;
    for (size_t k = 0; k < 4; ++k) {
      const int d = k < n ? table[static_cast<unsigned char>(text[i + k])] : 0;
      if (d < 0) return false;
      x = x << 6 | static_cast<uint32_t>(d);
    }
    for (size_t k = 0; k + 1 < n; ++k) bytes += static_cast<char>((x >> (16 - 8 * k)) & 0xff);
  }
  v.resize(count);
  for (size_t i = 0; i < count; ++i) {
    uint64_t u = 0;
    for (int b = 7; b >= 0; --b) u = u << 8 | static_cast<unsigned char>(bytes[i * 8 + static_cast<size_t>(b)]);
    std::memcpy(&v[i], &u, 8);
  }
  return true;
}

class Writer {
 public:
  std::string out;
  void str(std::string_view s) {
    out += std::to_string(s.size());
    out += ':';
    out += s;
  }
  void num(long long v) { str(std::to_string(v)); }
  void dbl(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    str(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
  }
  void map(const std::map<std::string, std::string>& m) {
    num(static_cast<long long>(m.size()));
    for (const auto& [k, v] : m) {
      str(k);
      str(v);
    }
  }
  void list(const std::vector<std::string>& v) {
    num(static_cast<long long>(v.size()));
    for (const std::string& s : v) str(s);
  }
  // A record's fields in order (record_fields below), each written as its type is.
  template <class... T>
  void operator()(const T&... v) {
    (one(v), ...);
  }

 private:
  void one(const std::string& s) { str(s); }
  void one(const std::map<std::string, std::string>& m) { map(m); }
  void one(double v) { dbl(v); }
  void one(int v) { num(v); }
  void one(long v) { num(v); }
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  std::string_view view() {
    size_t len = 0;
    const auto r = std::from_chars(in_.data() + at_, in_.data() + in_.size(), len);
    if (r.ec != std::errc() || r.ptr == in_.data() + in_.size() || *r.ptr != ':') fail("a token without its length");
    at_ = static_cast<size_t>(r.ptr - in_.data()) + 1;
    if (len > in_.size() - at_) fail("a token longer than what is left");
    const std::string_view s = in_.substr(at_, len);
    at_ += len;
    return s;
  }
  std::string str() { return std::string(view()); }
  long long num() {
    const std::string_view s = view();
    long long v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) fail(fmt::format("'{}' is not an integer", s));
    return v;
  }
  // A count of things still to read: each takes two bytes at least ("0:"), so a count above half
  // of what is left is malformed (and cannot make a reader allocate more than the digest's size).
  size_t count() {
    const long long n = num();
    if (n < 0 || static_cast<size_t>(n) > (in_.size() - at_) / 2) fail("a count out of range");
    return static_cast<size_t>(n);
  }
  double dbl() {
    const std::string_view s = view();
    double v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) fail(fmt::format("'{}' is not a number", s));
    return v;
  }
  std::map<std::string, std::string> map() {
    std::map<std::string, std::string> m;
    for (size_t n = count(); n--;) {
      std::string k = str();
      m.emplace_hint(m.end(), std::move(k), str());
    }
    return m;
  }
  std::vector<std::string> list() {
    std::vector<std::string> v(count());
    for (std::string& s : v) s = str();
    return v;
  }
  // A record's fields in order (record_fields below), each read back as its type is.
  template <class... T>
  void operator()(T&... v) {
    (one(v), ...);
  }
  bool done() const { return at_ == in_.size(); }
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error(fmt::format("run digest: {} at byte {}", why, at_));
  }

 private:
  void one(std::string& s) { s = str(); }
  void one(std::map<std::string, std::string>& m) { m = map(); }
  void one(double& v) { v = dbl(); }
  void one(int& v) { v = static_cast<int>(num()); }
  void one(long& v) { v = static_cast<long>(num()); }
  std::string_view in_;
  size_t at_ = 0;
};

// Each record's fields in the digest's order, one list for the writer and the reader alike (R is the
// record, const when written).
template <class IO, class R>
void manifest_fields(IO& io, R& m) {
  io(m.benchmark, m.area, m.command, m.exit_code, m.status, m.duration_s, m.output, m.reason, m.rows, m.sha256);
}
template <class IO, class R>
void concurrent_fields(IO& io, R& c) {
  io(c.pid, c.run_dir, c.first_seen, c.last_seen);
}
template <class IO, class R>  // the case's key is case_key of its own fields: not written
void case_fields(IO& io, R& c) {
  io(c.source, c.benchmark, c.case_name, c.requested, c.area, c.observed);
}

}  // namespace

std::string run_digest_key(const CaseRules& rules) {
  Writer w;
  w.num(static_cast<long long>(rules.roles.size()));
  for (const auto& [k, v] : rules.roles) {
    w.str(k.first);
    w.str(k.second);
    w.str(v);
  }
  w.num(static_cast<long long>(rules.headlines.size()));
  for (const auto& [k, v] : rules.headlines) {
    w.str(k);
    w.list(v);
  }
  w.map(rules.area_of_entry);
  const Renames& rn = suite_renames();
  w.map(rn.benchmark);
  w.map(rn.metric);
  w.num(static_cast<long long>(rn.source.size()));
  for (const auto& [k, v] : rn.source) {
    w.str(k);
    w.str(v.to);
    w.str(v.case_suffix);
  }
  return fmt::format("digest {} {}", kRunDigestFormat, sha256_hex(w.out));
}

std::string encode_run_digest(const LoadedRun& r) {
  Writer w;
  w.str(kMagic);
  w.num(kRunDigestFormat);
  const RunData& d = r.data;
  w.map(d.inventory);
  // The facts: the inventory's and a few of the run's own (read_run); only those that differ from it.
  std::map<std::string, std::string> own;
  for (const auto& [k, v] : d.facts)
    if (auto it = d.inventory.find(k); it == d.inventory.end() || it->second != v) own.emplace(k, v);
  w.map(own);
  std::vector<std::string> gone;  // an inventory field the facts lack (none today)
  for (const auto& [k, v] : d.inventory)
    if (!d.facts.count(k)) gone.push_back(k);
  w.list(gone);
  w.num(static_cast<long long>(d.manifest.size()));
  for (const ManifestRow& m : d.manifest) manifest_fields(w, m);
  w.num(static_cast<long long>(d.concurrent.size()));
  for (const ConcurrentRun& c : d.concurrent) concurrent_fields(w, c);
  w.str(d.recovered);
  w.list(d.result_files);
  w.num(static_cast<long long>(d.integrity.files.size()));
  for (const FileIntegrity& f : d.integrity.files) {
    w.str(f.file);
    w.num(static_cast<long long>(f.state));
    w.str(f.why);
  }
  w.list(d.excluded);
  w.map(r.area_of);
  w.str(r.time_utc);
  w.num(static_cast<long long>(r.cases.size()));
  for (const auto& [key, c] : r.cases) {  // the key is case_key of the case's own fields: not written
    if (key != case_key(c.source, c.benchmark, c.case_name, c.requested))
      throw std::logic_error("encode_run_digest: a case filed under another key than its own: " + key);
    case_fields(w, c);
    w.num(static_cast<long long>(c.metrics.size()));
    for (const auto& [name, m] : c.metrics) {
      w.str(name);
      w.str(m.unit);
      w.num(m.better);
      w.num(static_cast<long long>(m.reps.size()));
      w.str(doubles_to_base64(m.reps));
    }
    w.list(std::vector<std::string>(c.disturbed.begin(), c.disturbed.end()));
  }
  w.map(r.not_working);
  w.map(r.not_working_by_name);
  w.num(static_cast<long long>(r.ok_rows));
  w.num(static_cast<long long>(r.mistrusted_rows));
  return std::move(w.out);
}

LoadedRun decode_run_digest(const std::string& body, const std::string& dir) {
  Reader in(body);
  if (in.view() != kMagic) in.fail("not a run digest");
  if (const long long f = in.num(); f != kRunDigestFormat)
    in.fail(fmt::format("format {}, this rigcheck reads format {}", f, kRunDigestFormat));
  LoadedRun r;
  r.dir = dir;
  r.label = dir;  // its folder's name, as load_run gives it
  while (r.label.size() > 1 && r.label.back() == '/') r.label.pop_back();
  if (const size_t slash = r.label.rfind('/'); slash != std::string::npos) r.label.erase(0, slash + 1);
  RunData& d = r.data;
  d.dir = dir;
  d.integrity.dir = dir;
  d.inventory = in.map();
  d.facts = d.inventory;
  for (auto& [k, v] : in.map()) d.facts[k] = std::move(v);
  for (const std::string& k : in.list()) d.facts.erase(k);
  d.manifest.resize(in.count());
  for (ManifestRow& m : d.manifest) manifest_fields(in, m);
  d.concurrent.resize(in.count());
  for (ConcurrentRun& c : d.concurrent) concurrent_fields(in, c);
  d.recovered = in.str();
  d.result_files = in.list();
  d.integrity.files.resize(in.count());
  for (FileIntegrity& f : d.integrity.files) {
    f.file = in.str();
    const long long s = in.num();
    if (s < static_cast<long long>(FileState::verified) || s > static_cast<long long>(FileState::broken))
      in.fail("a file state out of range");
    f.state = static_cast<FileState>(s);
    f.why = in.str();
  }
  d.excluded = in.list();
  r.area_of = in.map();
  r.time_utc = in.str();
  for (size_t n = in.count(); n--;) {
    CaseRun c;
    case_fields(in, c);
    for (size_t k = in.count(); k--;) {
      std::string name = in.str();
      MetricSample& m = c.metrics.emplace_hint(c.metrics.end(), std::move(name), MetricSample{})->second;
      m.unit = in.str();
      m.better = static_cast<int>(in.num());
      const size_t reps = in.count();
      if (!base64_to_doubles(in.view(), reps, m.reps))
        in.fail("repetitions that are not the base64 of their count of doubles");
    }
    for (std::string& s : in.list()) c.disturbed.insert(std::move(s));
    std::string key = case_key(c.source, c.benchmark, c.case_name, c.requested);
    r.cases.emplace_hint(r.cases.end(), std::move(key), std::move(c));
  }
  r.not_working = in.map();
  r.not_working_by_name = in.map();
  r.ok_rows = static_cast<size_t>(in.num());
  r.mistrusted_rows = static_cast<size_t>(in.num());
  if (!in.done()) in.fail("bytes after the end");
  return r;
}

}  // namespace rigcheck
