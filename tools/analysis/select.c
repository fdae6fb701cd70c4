/* Selection of call paths by a query (instr_analysis.h, docs/analysis.md#queries): a small
 * recursive-descent parser that evaluates as it parses, each term into a byte per path.
 *   expr   := term { "or" term }
 *   term   := factor { "and" factor }
 *   factor := "not" factor | "(" expr ")" | "all" | NAME "(" ARG ")" | COLUMN OP NUMBER ["%"]
 */
#include "jdb_internal.h"

#include <ctype.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  const instr_jdb *db;
  const char *query, *at;
  int failed;
  int depth; /* of "not" and "(" around the factor being parsed */
} parser;

/* Each "not" and "(" is a level of recursion: a bound keeps a crafted query (30,000 of
 * them) from overflowing the stack; no query a person writes comes near it. */
#define MAX_NESTING 256

static void syntax_error(parser *p, const char *what) {
  if (p->failed) return;
  p->failed = 1;
  /* a long query is shown by its start: the message must keep where and what */
  int shown = strlen(p->query) > 80 ? 77 : 80;
  jdb_fail("%s: query \"%.*s%s\": at character %ld: %s", p->db->file, shown, p->query,
           shown == 77 ? "..." : "", (long)(p->at - p->query) + 1, what);
}

static void skip_blanks(parser *p) {
  while (isspace((unsigned char)*p->at)) p->at++;
}

static int name_char(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == ':' || c == '.' || c == '-';
}

/* The next word (without consuming it): its length, 0 when none. */
static size_t peek_word(parser *p) {
  skip_blanks(p);
  size_t n = 0;
  while (name_char(p->at[n])) n++;
  return n;
}

static int next_is(parser *p, const char *word) {
  size_t n = peek_word(p);
  return n == strlen(word) && strncmp(p->at, word, n) == 0;
}

static unsigned char *new_set(parser *p) {
  unsigned char *s = calloc(p->db->npaths ? p->db->npaths : 1, 1);
  if (!s) {
    jdb_fail("%s: out of memory for a selection of %" PRIu32 " paths", p->db->file,
             p->db->npaths);
    p->failed = 1;
  }
  return s;
}

static const char *const paradigms[] = {"user", "mpi", "openmp", "manual", "other"};

static unsigned char *match_function(parser *p, const char *fn, const char *arg) {
  const instr_jdb *db = p->db;
  long paradigm = -1;
  if (strcmp(fn, "paradigm") == 0) {
    for (int i = 0; i < 5; i++)
      if (strcmp(arg, paradigms[i]) == 0) paradigm = i;
    if (paradigm < 0) {
      syntax_error(p, "paradigm(...) takes user, mpi, openmp, manual or other");
      return NULL;
    }
  } else if (strcmp(fn, "function") != 0 && strcmp(fn, "path") != 0 &&
             strcmp(fn, "file") != 0) {
    syntax_error(p, "unknown selector: the selectors are function(GLOB), path(GLOB), "
                    "file(GLOB), paradigm(NAME)");
    return NULL;
  }
  unsigned char *set = new_set(p);
  if (set && strcmp(fn, "path") == 0) { /* contexts matched incrementally */
    if (jdb_match_contexts(db, arg, set)) {
      jdb_fail("%s: out of memory for matching path(%s)", db->file, arg);
      p->failed = 1;
      free(set);
      set = NULL;
    }
    return set;
  }
  for (uint32_t q = 0; set && q < db->npaths; q++) {
    const unsigned char *region = jdb_region_rec(db, jdb_path_region(db, q));
    if (paradigm >= 0) {
      set[q] = jdb_u32(region + 24) == (uint32_t)paradigm;
    } else if (fn[1] == 'u') { /* function */
      set[q] = fnmatch(arg, jdb_string(db, jdb_u32(region)), 0) == 0;
    } else { /* file */
      set[q] = fnmatch(arg, jdb_string(db, jdb_u32(region + 8)), 0) == 0;
    }
  }
  return set;
}

static unsigned char *compare_column(parser *p, const char *column) {
  const instr_jdb *db = p->db;
  skip_blanks(p);
  int op; /* 0 >=, 1 >, 2 <=, 3 < */
  if (p->at[0] == '>' && p->at[1] == '=') op = 0, p->at += 2;
  else if (p->at[0] == '<' && p->at[1] == '=') op = 2, p->at += 2;
  else if (p->at[0] == '>') op = 1, p->at += 1;
  else if (p->at[0] == '<') op = 3, p->at += 1;
  else {
    syntax_error(p, "expected a selector such as function(MPI_*), or a column compared with "
                    ">=, >, <= or < (time_incl >= 1%)");
    return NULL;
  }
  skip_blanks(p);
  char *end;
  double bound = strtod(p->at, &end);
  if (end == p->at || !isfinite(bound)) {
    syntax_error(p, "expected a number");
    return NULL;
  }
  p->at = end;
  skip_blanks(p);
  long col = instr_jdb_find_column(db, column);
  if (col < 0) {
    p->failed = 1; /* the message lists the columns */
    return NULL;
  }
  if (*p->at == '%') {
    p->at++;
    bound = bound / 100.0 * instr_jdb_total(db, (uint32_t)col);
  }
  unsigned char *set = new_set(p);
  for (uint32_t q = 0; set && q < db->npaths; q++) {
    instr_jdb_summary s;
    jdb_read_summary(db, q, (uint32_t)col, &s);
    set[q] = op == 0 ? s.sum >= bound : op == 1 ? s.sum > bound : op == 2 ? s.sum <= bound
                                                                          : s.sum < bound;
  }
  return set;
}

static unsigned char *expr(parser *p);

static int enter_level(parser *p) {
  if (++p->depth <= MAX_NESTING) return 1;
  syntax_error(p, "nested deeper than 256 levels of not and parentheses; write the query "
                  "flatter");
  return 0;
}

static unsigned char *factor(parser *p) {
  if (p->failed) return NULL;
  skip_blanks(p);
  if (next_is(p, "not")) {
    p->at += 3;
    if (!enter_level(p)) return NULL;
    unsigned char *s = factor(p);
    p->depth--;
    for (uint32_t q = 0; s && q < p->db->npaths; q++) s[q] = !s[q];
    return s;
  }
  if (*p->at == '(') {
    p->at++;
    if (!enter_level(p)) return NULL;
    unsigned char *s = expr(p);
    p->depth--;
    skip_blanks(p);
    if (s && *p->at != ')') {
      syntax_error(p, "expected ')'");
      free(s);
      return NULL;
    }
    if (s) p->at++;
    return s;
  }
  size_t n = peek_word(p);
  if (n == 0) {
    syntax_error(p, *p->at ? "expected a selector such as function(MPI_*), all, not or '('"
                           : "the query ends where a selector was expected");
    return NULL;
  }
  char word[128];
  if (n >= sizeof word) {
    syntax_error(p, "name too long");
    return NULL;
  }
  memcpy(word, p->at, n);
  word[n] = '\0';
  p->at += n;
  if (strcmp(word, "all") == 0) {
    unsigned char *s = new_set(p);
    if (s) memset(s, 1, p->db->npaths);
    return s;
  }
  skip_blanks(p);
  if (*p->at != '(') return compare_column(p, word);
  /* the argument runs to the matching ')': C++ names carry parentheses of their own */
  const char *arg_start = ++p->at;
  int depth = 1;
  while (*p->at && depth > 0) {
    if (*p->at == '(') depth++;
    if (*p->at == ')') depth--;
    if (depth > 0) p->at++;
  }
  if (depth > 0) {
    syntax_error(p, "expected ')' to close the selector's argument");
    return NULL;
  }
  size_t len = (size_t)(p->at - arg_start);
  p->at++;
  char *arg = malloc(len + 1);
  if (!arg) {
    jdb_fail("%s: out of memory", p->db->file);
    p->failed = 1;
    return NULL;
  }
  memcpy(arg, arg_start, len);
  arg[len] = '\0';
  /* blanks around the argument are not part of it */
  char *a = arg;
  while (isspace((unsigned char)*a)) a++;
  for (size_t e = strlen(a); e > 0 && isspace((unsigned char)a[e - 1]); e--) a[e - 1] = '\0';
  unsigned char *s = match_function(p, word, a);
  free(arg);
  return s;
}

static unsigned char *term(parser *p) {
  unsigned char *s = factor(p);
  while (s && !p->failed && next_is(p, "and")) {
    p->at += 3;
    unsigned char *t = factor(p);
    if (!t) {
      free(s);
      return NULL;
    }
    for (uint32_t q = 0; q < p->db->npaths; q++) s[q] = s[q] && t[q];
    free(t);
  }
  return s;
}

static unsigned char *expr(parser *p) {
  unsigned char *s = term(p);
  while (s && !p->failed && next_is(p, "or")) {
    p->at += 2;
    unsigned char *t = term(p);
    if (!t) {
      free(s);
      return NULL;
    }
    for (uint32_t q = 0; q < p->db->npaths; q++) s[q] = s[q] || t[q];
    free(t);
  }
  return s;
}

long instr_jdb_select(const instr_jdb *db, const char *query, uint32_t *out) {
  jdb_clear_error();
  if (jdb_check_size(db)) return -1;
  parser p = {db, query, query, 0, 0};
  unsigned char *set = expr(&p);
  skip_blanks(&p);
  if (set && !p.failed && *p.at != '\0')
    syntax_error(&p, "expected and, or, or the end of the query");
  if (!set || p.failed) {
    free(set);
    if (!p.failed) syntax_error(&p, "invalid query");
    return -1;
  }
  long n = 0;
  for (uint32_t q = 0; q < db->npaths; q++)
    if (set[q]) out[n++] = q;
  free(set);
  return n;
}
