#include "core/aof_manifest.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>

#include "core/split_args.h"
#include "core/strings.h"

namespace rc {

namespace {

// Redis's MANIFEST_MAX_LINE: fgets reads at most this many bytes of a line.
constexpr size_t kMaxLine = 1024;

constexpr char kInvalid[] = "Invalid AOF manifest file format";

bool IsCPrint(char c) { return c >= 0x20 && c <= 0x7e; }

// The text as a C string sees it.
std::string_view CutAtNul(std::string_view s) { return s.substr(0, s.find('\0')); }

// atoll in the C locale: leading space, a sign, digits; junk after them ignored, overflow
// saturated.
int64_t AtoLL(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsCSpace(s[i])) ++i;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  const uint64_t limit = neg ? uint64_t{1} << 63 : uint64_t{INT64_MAX};
  uint64_t v = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    const unsigned d = static_cast<unsigned>(s[i] - '0');
    v = v > (limit - d) / 10 ? limit : v * 10 + d;
  }
  return neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

// sdsneedsrepr.
bool NeedsRepr(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return c == '\\' || c == '"' || !IsCPrint(c) || IsCSpace(c); });
}

// sdscatrepr: what sdssplitargs reads back as `s`.
void AppendRepr(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '\\':
      case '"':
        out->push_back('\\');
        out->push_back(c);
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\a':
        out->append("\\a");
        break;
      case '\b':
        out->append("\\b");
        break;
      default:
        if (IsCPrint(c)) {
          out->push_back(c);
        } else {
          const auto u = static_cast<unsigned char>(c);
          StrAppend(out, "\\x", "0123456789abcdef"[u >> 4], "0123456789abcdef"[u & 15]);
        }
    }
  }
  out->push_back('"');
}

// One line's fields; nullptr when the line is good, else Redis's message.
const char* ParseLine(std::string_view line, AofFileInfo* info) {
  const std::optional<std::vector<std::string>> argv = SplitArgs(line);
  // Redis asks for at least the three pairs, and leaves room for more in later versions.
  if (!argv || argv->size() < 6 || argv->size() % 2 != 0) return kInvalid;
  bool has_name = false;
  info->type = '\0';
  for (size_t i = 0; i < argv->size(); i += 2) {
    const std::string_view key = CutAtNul((*argv)[i]);
    const std::string_view value = CutAtNul((*argv)[i + 1]);
    if (EqualsIgnoreCase(key, "file")) {
      info->name = std::string(value);
      has_name = true;
      if (value.find_first_of("/\\") != std::string_view::npos) {
        return "File can't be a path, just a filename";
      }
    } else if (EqualsIgnoreCase(key, "seq")) {
      info->seq = AtoLL(value);
    } else if (EqualsIgnoreCase(key, "type")) {
      info->type = value.empty() ? '\0' : value[0];
    }
  }
  // Redis's own test: a seq of 0 (or none) counts as missing.
  if (!has_name || info->seq == 0 || info->type == '\0') return kInvalid;
  return nullptr;
}

}  // namespace

const AofFileInfo* AofManifest::base() const {
  for (const AofFileInfo& f : files) {
    if (f.type == 'b') return &f;
  }
  return nullptr;
}

std::vector<const AofFileInfo*> AofManifest::incrs() const {
  std::vector<const AofFileInfo*> out;
  for (const AofFileInfo& f : files) {
    if (f.type == 'i') out.push_back(&f);
  }
  return out;
}

bool ParseAofManifest(std::string_view text, AofManifest* out, std::string* error) {
  *out = AofManifest();
  std::vector<AofFileInfo> history, incrs;
  std::optional<AofFileInfo> base;
  int64_t max_seq = 0;
  size_t pos = 0;
  int linenum = 0;
  auto fail = [&](const char* why) {
    *out = AofManifest();
    *error = why;
    return false;
  };
  while (pos < text.size()) {
    // fgets(buf, MANIFEST_MAX_LINE + 1): through '\n' or kMaxLine bytes; then a C string.
    const size_t nl = text.find('\n', pos);
    const size_t end = std::min(
        {nl == std::string_view::npos ? text.size() : nl + 1, pos + kMaxLine, text.size()});
    std::string_view line = CutAtNul(text.substr(pos, end - pos));
    pos = end;
    ++linenum;
    if (!line.empty() && line[0] == '#') continue;  // a comment, at any length
    if (line.find('\n') == std::string_view::npos) {
      return fail("The AOF manifest file contains too long line");
    }
    const size_t first = line.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return fail(kInvalid);
    line = line.substr(first, line.find_last_not_of(" \t\r\n") + 1 - first);

    AofFileInfo info;
    if (const char* why = ParseLine(line, &info)) return fail(why);
    if (info.type == 'b') {
      if (base) return fail("Found duplicate base file information");
      out->curr_base_seq = info.seq;
      base = std::move(info);
    } else if (info.type == 'h') {
      history.push_back(std::move(info));
    } else if (info.type == 'i') {
      if (info.seq <= max_seq) return fail("Found a non-monotonic sequence number");
      max_seq = out->curr_incr_seq = info.seq;
      incrs.push_back(std::move(info));
    } else {
      return fail("Unknown AOF file type");
    }
  }
  if (linenum == 0) return fail("Found an empty AOF manifest");
  if (base) out->files.push_back(std::move(*base));
  for (auto* kind : {&history, &incrs}) {
    for (AofFileInfo& f : *kind) out->files.push_back(std::move(f));
  }
  return true;
}

std::string FormatAofManifest(const AofManifest& m) {
  std::string out;
  for (char type : {'b', 'h', 'i'}) {
    for (const AofFileInfo& f : m.files) {
      if (f.type != type) continue;
      out.append("file ");
      if (NeedsRepr(f.name)) {
        AppendRepr(f.name, &out);
      } else {
        out.append(f.name);
      }
      StrAppend(&out, " seq ", f.seq, " type ", f.type, "\n");
    }
  }
  return out;
}

std::string AofBaseName(std::string_view appendfilename, int64_t seq, bool rdb_preamble) {
  return StrCat(appendfilename, ".", seq, ".base", rdb_preamble ? ".rdb" : ".aof");
}

std::string AofIncrName(std::string_view appendfilename, int64_t seq) {
  return StrCat(appendfilename, ".", seq, ".incr.aof");
}

std::string AofManifestName(std::string_view appendfilename) {
  return StrCat(appendfilename, ".manifest");
}

}  // namespace rc
