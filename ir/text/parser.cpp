// Parser of the .hsb text format: a line-at-a-time recursive descent over ir/lexer tokens.
#include "ir/text/parser.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_map>

#include "core/error.h"
#include "ir/text/lexer.h"
#include "ir/text/literal.h"

namespace hassium {

namespace {

constexpr std::string_view kReserved[] = {"true", "false", "nan", "inf"};

// Edit distance between two names, ignoring case, for "did you mean" hints.
size_t edit_distance(std::string_view a, std::string_view b) {
  auto up = [](char c) { return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c; };
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (up(a[i - 1]) == up(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string unknown_opcode_message(std::string_view name) {
  std::string msg = "unknown opcode `" + printable(name) + "`";
  std::string_view best;
  size_t best_d = std::numeric_limits<size_t>::max();
  for (const auto& info : all_opcodes()) {
    size_t d = edit_distance(name, info.name);
    if (d < best_d) best_d = d, best = info.name;
  }
  if (best_d <= std::max<size_t>(1, std::min<size_t>(3, name.size() / 3)))
    msg += " (did you mean " + std::string(best) + "?)";
  return msg;
}

// An operand as parsed: a view, or a literal still waiting for its dtype.
struct ParsedOperand {
  std::optional<View> view;
  Literal lit;
  std::optional<DType> suffix; // the `:dtype` of a constant
  int col = 0;
};

struct DeclaredBase {
  BasePtr base;
  int line;
};

class Parser {
public:
  Parser(std::string_view filename) : file_(filename) { prog_.source_name = std::string(filename); }

  Program run(std::string_view text) {
    size_t start = 0;
    int lineno = 0;
    while (start <= text.size()) {
      size_t nl = text.find('\n', start);
      size_t end = nl == std::string_view::npos ? text.size() : nl;
      ++lineno;
      parse_line(text.substr(start, end - start), lineno);
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
    return std::move(prog_);
  }

private:
  std::string_view file_;
  Program prog_;
  std::unordered_map<std::string_view, DeclaredBase> bases_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int line_ = 0;

  [[noreturn]] void fail(int col, const std::string& msg) {
    throw_parse_error(file_, line_, col, msg);
  }
  [[noreturn]] void fail_expected(const std::string& what, const Token& t) {
    fail(t.col, "expected " + what + ", found " + token_text(t));
  }
  const Token& peek() const { return toks_[pos_]; }
  const Token& next() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }
  bool at_punct(char c) const { return peek().kind == TokenKind::PUNCT && peek().text[0] == c; }
  void expect_punct(char c, const std::string& context) {
    if (!at_punct(c)) fail_expected("`" + std::string(1, c) + "` " + context, peek());
    next();
  }

  void parse_line(std::string_view line, int lineno) {
    line_ = lineno;
    toks_ = lex_line(line, file_, lineno);
    pos_ = 0;
    const Token& first = peek();
    if (first.kind == TokenKind::END) return;
    if (first.kind == TokenKind::DIRECTIVE) {
      if (first.text != ".base")
        fail(first.col, "unknown directive `" + printable(first.text) + "` (expected .base)");
      next();
      parse_base();
    } else if (first.kind == TokenKind::IDENT) {
      parse_instruction();
    } else {
      fail_expected("an opcode or .base", first);
    }
  }

  // .base NAME DTYPE NELEM
  void parse_base() {
    const Token& name = next();
    if (name.kind != TokenKind::IDENT) fail_expected("a base name after .base", name);
    for (auto r : kReserved)
      if (name.text == r)
        fail(name.col, "`" + std::string(r) + "` is a constant and cannot name a base");
    if (auto it = bases_.find(name.text); it != bases_.end())
      fail(name.col, "duplicate base `" + std::string(name.text) + "` (first declared at line " +
                         std::to_string(it->second.line) + ")");
    const Token& dt = next();
    DType dtype = parse_dtype_token(dt, "a dtype after the base name");
    const Token& n = next();
    if (n.kind != TokenKind::NUMBER) fail_expected("the number of elements", n);
    int64_t nelem = parse_int_token(n, "the number of elements");
    if (nelem < 0)
      fail(n.col, "the number of elements must be >= 0, found " + std::to_string(nelem));
    if (nelem > std::numeric_limits<int64_t>::max() / dtype_size(dtype))
      fail(n.col, "base `" + std::string(name.text) + "` is too large: " + std::to_string(nelem) +
                      " elements of " + std::string(dtype_name(dtype)) + " exceed 2^63 bytes");
    if (peek().kind != TokenKind::END)
      fail(peek().col, "unexpected " + token_text(peek()) + " after the .base declaration");
    auto base = make_base(std::string(name.text), dtype, nelem);
    prog_.bases.push_back(base);
    bases_.emplace(std::string_view(base->name), DeclaredBase{base, line_});
  }

  DType parse_dtype_token(const Token& t, const std::string& what) {
    if (t.kind != TokenKind::IDENT) fail_expected(what, t);
    auto d = parse_dtype(t.text);
    if (!d)
      fail(t.col, "unknown dtype `" + printable(t.text) +
                      "` (valid: " + std::string(dtype_names_list()) + ")");
    return *d;
  }

  // An integer token (offset, extent, stride, element count) as int64.
  int64_t parse_int_token(const Token& t, const std::string& what) {
    Literal lit;
    std::string err = t.kind == TokenKind::NUMBER ? read_real_literal(t.text, lit) : "";
    if (t.kind != TokenKind::NUMBER || (err.empty() && lit.kind != Literal::Kind::INT))
      fail_expected("an integer (" + what + ")", t);
    if (!err.empty()) fail(t.col, err);
    Scalar s;
    if (!literal_to_scalar(lit, DType::INT64, s).empty())
      fail(t.col, what + " `" + printable(t.text) + "` is out of the int64 range");
    return s.i;
  }

  void parse_instruction() {
    const Token& name = next();
    auto op = parse_opcode(name.text);
    if (!op) fail(name.col, unknown_opcode_message(name.text));
    std::vector<ParsedOperand> ops;
    if (peek().kind != TokenKind::END) {
      ops.push_back(parse_operand());
      while (peek().kind != TokenKind::END) {
        if (!at_punct(',')) fail_expected("`,` between operands", peek());
        next();
        ops.push_back(parse_operand());
      }
    }
    prog_.instrs.emplace_back(*op, type_operands(*op, ops));
    prog_.source_lines.push_back(line_);
  }

  // Gives every constant its dtype: the suffix, else what the signature requires at that
  // position (ir/text/literal.h context_dtype), else the literal's natural dtype.
  std::vector<Operand> type_operands(Opcode op, const std::vector<ParsedOperand>& ops) {
    std::vector<std::optional<DType>> known(ops.size());
    for (size_t i = 0; i < ops.size(); ++i)
      known[i] = ops[i].view ? std::optional(ops[i].view->dtype()) : ops[i].suffix;
    std::vector<Operand> out;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].view) {
        out.emplace_back(*ops[i].view);
        continue;
      }
      std::optional<DType> t = ops[i].suffix;
      if (!t) t = context_dtype(op, i, known);
      if (!t) t = natural_dtype(ops[i].lit);
      Scalar s;
      std::string err = literal_to_scalar(ops[i].lit, *t, s);
      if (!err.empty()) fail(ops[i].col, err);
      out.emplace_back(s);
    }
    return out;
  }

  ParsedOperand parse_operand() {
    const Token& t = peek();
    ParsedOperand o;
    o.col = t.col;
    if (t.kind == TokenKind::IDENT && !is_constant_word(t.text)) {
      next();
      o.view = parse_view(t);
      if (at_punct(':')) fail(peek().col, "a `:dtype` suffix applies to constants, not to views");
      return o;
    }
    if (t.kind == TokenKind::PUNCT && t.text[0] == '(') {
      o.lit = parse_complex();
    } else if (t.kind == TokenKind::IDENT || t.kind == TokenKind::NUMBER) {
      next();
      o.lit = word_literal(t);
    } else {
      fail_expected("an operand (a base, a view or a constant)", t);
    }
    if (at_punct(':')) {
      next();
      o.suffix = parse_dtype_token(next(), "a dtype after `:`");
    }
    return o;
  }

  static bool is_constant_word(std::string_view w) {
    return std::find(std::begin(kReserved), std::end(kReserved), w) != std::end(kReserved);
  }

  // true, false, nan, inf or a number.
  Literal word_literal(const Token& t) {
    Literal lit;
    if (t.text == "true" || t.text == "false") {
      lit.kind = Literal::Kind::BOOL;
      lit.b = t.text == "true";
      lit.text = std::string(t.text);
      return lit;
    }
    std::string err = read_real_literal(t.text, lit);
    if (!err.empty()) fail(t.col, err);
    return lit;
  }

  // (re,im)
  Literal parse_complex() {
    const Token& open = next();
    Literal parts[2];
    for (int k = 0; k < 2; ++k) {
      const Token& t = next();
      bool word = t.kind == TokenKind::NUMBER ||
                  (t.kind == TokenKind::IDENT && (t.text == "nan" || t.text == "inf"));
      if (!word)
        fail_expected(
            std::string(k ? "the imaginary part" : "the real part") + " of a complex constant", t);
      parts[k] = word_literal(t);
      if (k == 0) expect_punct(',', "between the parts of a complex constant");
    }
    expect_punct(')', "to close the complex constant");
    const Token& close = toks_[pos_ - 1];
    Literal lit;
    lit.kind = Literal::Kind::COMPLEX;
    auto part = [](const Literal& l) {
      double m = double(l.magnitude);
      return l.kind == Literal::Kind::INT ? (l.negative ? -m : m) : l.re;
    };
    lit.re = part(parts[0]);
    lit.im = part(parts[1]);
    const char* b = open.text.data();
    lit.text = std::string(b, size_t(close.text.data() + 1 - b));
    return lit;
  }

  // NAME or NAME{offset;shape;stride}
  View parse_view(const Token& name) {
    auto it = bases_.find(name.text);
    if (it == bases_.end()) fail(name.col, "undeclared base `" + std::string(name.text) + "`");
    const BasePtr& base = it->second.base;
    if (!at_punct('{')) return View::whole(base);
    next();
    View v;
    v.base = base;
    v.offset = parse_int_token(next(), "the view offset");
    expect_punct(';', "after the view offset");
    v.shape = parse_dims("an extent of the view shape", true);
    expect_punct(';', "after the view shape");
    const Token& stride_start = peek();
    v.stride = parse_dims("a stride of the view", false);
    if (v.stride.size() != v.shape.size())
      fail(stride_start.col, "the view shape has " + std::to_string(v.shape.size()) +
                                 " dimension(s) but its stride has " +
                                 std::to_string(v.stride.size()));
    expect_punct('}', "to close the view");
    return v;
  }

  // A comma-separated list of integers, possibly empty (a 0-d view).
  Dims parse_dims(const std::string& what, bool extents) {
    Dims d;
    if (at_punct(';') || at_punct('}')) return d;
    while (true) {
      const Token& t = next();
      int64_t x = parse_int_token(t, what);
      if (extents && x < 0)
        fail(t.col, "negative extent " + std::to_string(x) + " in the view shape");
      d.push_back(x);
      if (!at_punct(',')) return d;
      next();
    }
  }
};

} // namespace

Program parse_program(std::string_view text, std::string_view filename) {
  return Parser(filename).run(text);
}

Program parse_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) HS_USER_ERROR() << path << ": cannot open: " << std::strerror(errno);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) HS_USER_ERROR() << path << ": is a directory";
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_program(ss.str(), path);
}

} // namespace hassium
