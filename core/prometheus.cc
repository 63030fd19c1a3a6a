#include "core/prometheus.h"

#include <charconv>
#include <map>
#include <vector>

namespace rc {

namespace {

bool IsNumber(std::string_view v) {
  if (v.empty()) return false;
  double d;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  return ec == std::errc() && ptr == v.data() + v.size();
}

std::string MetricName(std::string_view s) {
  std::string out = "ringcache_";
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out.push_back(ok ? c : '_');
  }
  return out;
}

std::string LabelValue(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

bool IsCounter(std::string_view key) {
  static const std::string_view kCounters[] = {
      "keyspace_hits", "keyspace_misses", "expired_keys", "evicted_keys", "rejected_calls",
      "used_cpu_sys", "used_cpu_user", "calls", "usec", "failed_calls", "count",
      "lazyfreed_objects", "expired_stale_perc"};
  if (key.substr(0, 6) == "total_") return true;
  for (std::string_view c : kCounters) {
    if (key == c) return true;
  }
  return false;
}

// "p99.9" -> "0.999"
std::string Quantile(std::string_view p) {
  std::string digits(p.substr(1));
  double q = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), q);
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof(buf), q / 100, std::chars_format::general, 6);
  return std::string(buf, res.ptr);
}

struct Family {
  bool counter = false;
  std::vector<std::string> samples;  // "name{labels} value"
};

}  // namespace

std::string InfoToPrometheus(std::string_view info) {
  // Keyed prefixes of INFO's composite lines and the label each one's suffix becomes.
  struct Prefix {
    std::string_view prefix, family, label;
  };
  static const Prefix kPrefixes[] = {
      {"cmdstat_", "cmdstat", "cmd"},
      {"errorstat_", "errorstat", "error"},
      {"latency_percentiles_usec_", "latency_percentiles_usec", "cmd"},
      {"db", "keyspace", "db"},
  };
  std::map<std::string, Family> families;
  std::string info_labels;
  size_t pos = 0;
  while (pos < info.size()) {
    size_t end = info.find('\n', pos);
    if (end == std::string_view::npos) end = info.size();
    std::string_view line = info.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon), value = line.substr(colon + 1);
    if (IsNumber(value)) {
      Family& f = families[MetricName(key)];
      f.counter = IsCounter(key);
      f.samples.push_back(MetricName(key) + " " + std::string(value));
      continue;
    }
    const Prefix* composite = nullptr;
    if (value.find('=') != std::string_view::npos) {
      for (const Prefix& p : kPrefixes) {
        if (key.substr(0, p.prefix.size()) == p.prefix && key.size() > p.prefix.size()) {
          composite = &p;
          break;
        }
      }
    }
    if (composite == nullptr) {
      // Text (versions, modes): labels of one info metric. Composite lines of unknown
      // shape are left out rather than guessed at.
      // "_human" fields repeat a number that is exported as such.
      bool human = key.size() > 6 && key.substr(key.size() - 6) == "_human";
      if (!human && value.find('=') == std::string_view::npos) {
        if (!info_labels.empty()) info_labels += ",";
        info_labels += MetricName(key).substr(10) + "=\"" + LabelValue(value) + "\"";
      }
      continue;
    }
    std::string_view suffix = key.substr(composite->prefix.size());
    size_t fpos = 0;
    while (fpos <= value.size()) {
      size_t comma = value.find(',', fpos);
      if (comma == std::string_view::npos) comma = value.size();
      std::string_view field = value.substr(fpos, comma - fpos);
      fpos = comma + 1;
      size_t eq = field.find('=');
      if (eq == std::string_view::npos) continue;
      std::string_view name = field.substr(0, eq), v = field.substr(eq + 1);
      if (!IsNumber(v)) continue;
      std::string labels = std::string(composite->label) + "=\"" + LabelValue(suffix) + "\"";
      std::string metric = MetricName(composite->family);
      if (composite->family == "latency_percentiles_usec" && name.size() > 1 &&
          name[0] == 'p') {
        labels += ",quantile=\"" + Quantile(name) + "\"";
      } else {
        metric += "_" + MetricName(name).substr(10);
      }
      Family& f = families[metric];
      f.counter = IsCounter(name);
      f.samples.push_back(metric + "{" + labels + "} " + std::string(v));
    }
  }
  std::string out;
  if (!info_labels.empty()) {
    out += "# TYPE ringcache_info gauge\nringcache_info{" + info_labels + "} 1\n";
  }
  for (const auto& [name, f] : families) {
    out += "# TYPE " + name + (f.counter ? " counter\n" : " gauge\n");
    for (const auto& s : f.samples) out += s + "\n";
  }
  return out;
}

}  // namespace rc
