#include "core/json.h"

#include <cctype>

#include "core/strings.h"

namespace rc {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  bool Document(JsonValue* out) {
    if (!Value(out, 0)) return false;
    SkipSpace();
    if (pos_ != text_.size()) return Fail("unexpected text after the value");
    return true;
  }
  const std::string& error() const { return error_; }

 private:
  // Deep enough for any configuration, shallow enough that a hostile file cannot
  // exhaust the stack.
  static constexpr int kMaxDepth = 64;

  bool Fail(std::string_view what) {
    int line = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) line += text_[i] == '\n';
    error_ = StrCat("line ", line, ": ", what);
    return false;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Word(std::string_view w) {
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }

  bool Value(JsonValue* out, int depth) {
    if (depth > kMaxDepth) return Fail("nested too deeply");
    SkipSpace();
    if (pos_ >= text_.size()) return Fail("unexpected end of input");
    const char c = text_[pos_];
    if (c == '{') return Object(out, depth);
    if (c == '[') return Array(out, depth);
    if (c == '"') {
      out->kind = JsonValue::Kind::kString;
      return String(&out->string);
    }
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) return Number(out);
    if (Word("true") || Word("false")) {
      out->kind = JsonValue::Kind::kBool;
      out->boolean = c == 't';
      return true;
    }
    if (Word("null")) return true;
    return Fail("expected a value");
  }

  bool Object(JsonValue* out, int depth) {
    out->kind = JsonValue::Kind::kObject;
    ++pos_;
    if (Eat('}')) return true;
    do {
      SkipSpace();
      std::string key;
      if (pos_ >= text_.size() || text_[pos_] != '"') return Fail("expected a member name");
      if (!String(&key)) return false;
      if (!Eat(':')) return Fail("expected ':'");
      if (out->object.count(key)) return Fail(StrCat("member \"", key, "\" given twice"));
      if (!Value(&out->object[key], depth + 1)) return false;
    } while (Eat(','));
    return Eat('}') || Fail("expected ',' or '}'");
  }

  bool Array(JsonValue* out, int depth) {
    out->kind = JsonValue::Kind::kArray;
    ++pos_;
    if (Eat(']')) return true;
    do {
      out->array.emplace_back();
      if (!Value(&out->array.back(), depth + 1)) return false;
    } while (Eat(','));
    return Eat(']') || Fail("expected ',' or ']'");
  }

  bool String(std::string* out) {
    ++pos_;  // the opening quote
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in a string");
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) break;
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'u': {
          unsigned code = 0;
          for (int i = 0; i < 4; ++i, ++pos_) {
            if (pos_ >= text_.size() || !std::isxdigit(static_cast<unsigned char>(text_[pos_]))) {
              return Fail("bad \\u escape");
            }
            const char h = char(std::tolower(static_cast<unsigned char>(text_[pos_])));
            code = code * 16 + unsigned(h <= '9' ? h - '0' : h - 'a' + 10);
          }
          if (code >= 0x80) return Fail("\\u escape beyond ASCII");
          out->push_back(char(code));
          break;
        }
        default:
          return Fail("bad escape in a string");
      }
    }
    return Fail("unterminated string");
  }

  bool Number(JsonValue* out) {
    out->kind = JsonValue::Kind::kInt;
    const bool negative = text_[pos_] == '-';
    if (negative) ++pos_;
    const size_t start = pos_;
    uint64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (v > (uint64_t(INT64_MAX) - 9) / 10) return Fail("number out of range");
      v = v * 10 + uint64_t(text_[pos_++] - '0');
    }
    if (pos_ == start) return Fail("expected a digit");
    if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E')) {
      return Fail("only integers are accepted");
    }
    out->integer = negative ? -int64_t(v) : int64_t(v);
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

bool ParseJson(std::string_view text, JsonValue* out, std::string* error) {
  Reader r(text);
  *out = JsonValue();
  if (r.Document(out)) return true;
  *error = r.error();
  return false;
}

}  // namespace rc
