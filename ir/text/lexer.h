// Lexer of the .hsb text format: splits one line into tokens with 1-based columns.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hassium {

enum class TokenKind {
  IDENT,     // [A-Za-z_][A-Za-z0-9_]*: opcodes, base names, dtypes, true/false/nan/inf
  NUMBER,    // a digit, `.digit` or a sign, then [A-Za-z0-9_.] (and a sign right after e/E)
  DIRECTIVE, // `.` followed by an identifier: `.base`
  PUNCT,     // one of , ; : { } ( )
  END,       // the end of the line (or the start of a `#` comment)
};

struct Token {
  TokenKind kind;
  std::string_view text; // a slice of the line (empty for END)
  int col;               // 1-based column of the first character
};

// The tokens of one line (without its newline), ending with an END token. Throws UserError
// "FILE:LINE:COL: unexpected character ..." for a character no token starts with.
std::vector<Token> lex_line(std::string_view line, std::string_view filename, int lineno);

// How a token reads in a message: "`ADD`" or "end of line".
std::string token_text(const Token& t);

// Throws UserError "FILE:LINE:COL: message".
[[noreturn]] void throw_parse_error(std::string_view filename, int lineno, int col,
                                    const std::string& message);

// A string made safe to quote in a message: non-printable bytes become \xNN.
std::string printable(std::string_view s);

} // namespace hassium
