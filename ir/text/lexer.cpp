// Lexer of the .hsb text format: one line at a time, comments dropped, columns kept.
#include "ir/text/lexer.h"

#include <cstdio>

#include "core/error.h"

namespace hassium {

namespace {
bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_word(char c) {
  return is_alpha(c) || is_digit(c);
}
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
bool is_punct(char c) {
  return c == ',' || c == ';' || c == ':' || c == '{' || c == '}' || c == '(' || c == ')';
}

// The end of a number token that starts at i: a leading sign, then word characters and
// dots, and a sign right after the exponent letter of a decimal number (1e-3).
size_t number_end(std::string_view s, size_t i) {
  if (s[i] == '-' || s[i] == '+') ++i;
  bool decimal = i < s.size() && (is_digit(s[i]) || s[i] == '.');
  while (i < s.size()) {
    char c = s[i];
    bool exp_sign = (c == '-' || c == '+') && decimal && (s[i - 1] == 'e' || s[i - 1] == 'E');
    if (!is_word(c) && c != '.' && !exp_sign) break;
    ++i;
  }
  return i;
}
} // namespace

std::string printable(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

void throw_parse_error(std::string_view filename, int lineno, int col, const std::string& message) {
  throw UserError(std::string(filename) + ":" + std::to_string(lineno) + ":" + std::to_string(col) +
                  ": " + message);
}

std::string token_text(const Token& t) {
  if (t.kind == TokenKind::END) return "end of line";
  return "`" + printable(t.text) + "`";
}

std::vector<Token> lex_line(std::string_view line, std::string_view filename, int lineno) {
  std::vector<Token> toks;
  size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    int col = int(i) + 1;
    if (is_space(c)) {
      ++i;
      continue;
    }
    if (c == '#') break;
    size_t start = i;
    TokenKind kind;
    if (is_alpha(c)) {
      while (i < line.size() && is_word(line[i])) ++i;
      kind = TokenKind::IDENT;
    } else if (is_digit(c) || ((c == '.' || c == '-' || c == '+') && i + 1 < line.size() &&
                               (is_digit(line[i + 1]) ||
                                (c != '.' && (is_alpha(line[i + 1]) || line[i + 1] == '.'))))) {
      i = number_end(line, i);
      kind = TokenKind::NUMBER;
    } else if (c == '.' && i + 1 < line.size() && is_alpha(line[i + 1])) {
      ++i;
      while (i < line.size() && is_word(line[i])) ++i;
      kind = TokenKind::DIRECTIVE;
    } else if (is_punct(c)) {
      ++i;
      kind = TokenKind::PUNCT;
    } else {
      throw_parse_error(filename, lineno, col,
                        "unexpected character `" + printable(line.substr(i, 1)) + "`");
    }
    toks.push_back({kind, line.substr(start, i - start), col});
  }
  toks.push_back({TokenKind::END, {}, int(line.size()) + 1});
  return toks;
}

} // namespace hassium
