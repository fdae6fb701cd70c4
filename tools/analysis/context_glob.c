/* path(GLOB): the glob matched against every path's calling context (region names joined by
 * '/') without building the contexts. A context is its parent's context, '/' and a name, so
 * the glob runs as a set of pattern positions (a bitset, an NFA) carried from each path to its
 * children: a path costs the length of its own name, whatever its depth. Joining each
 * context and matching it with fnmatch cost the depth per path (quadratic in a deep
 * recursion, and fnmatch's backtracking on '*' more on top).
 *
 * The matching is fnmatch(pattern, context, 0)'s: '*' any characters ('/' included), '?' one
 * character, '[...]' one character of a bracket expression (fnmatch itself decides a
 * character against the bracket, so classes and ranges mean what they mean to it), '\' makes
 * the next character literal, a trailing '\' matches nothing, an unterminated '[' is literal.
 * Characters are the locale's (mbrlen): '?' takes a whole UTF-8 character where fnmatch does.
 */
#include "jdb_internal.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <wchar.h>

enum { TOK_CHAR, TOK_ANY, TOK_SET, TOK_STAR };

typedef struct {
  int kind;
  unsigned char len;        /* TOK_CHAR: the character's bytes */
  char bytes[MB_LEN_MAX];
  char *set;                /* TOK_SET: "[...]" as its own pattern */
} token;

typedef struct {
  token *tok;
  size_t ntok, words; /* states 0..ntok (ntok: the whole pattern matched), in words of 64 */
  int never;          /* a trailing '\': nothing matches */
} glob;

/* The length of the character at s (at least 1: an invalid byte is a character of its own,
 * as on both sides of the comparison alike). */
static size_t char_len(const char *s, size_t left) {
  if (MB_CUR_MAX == 1 || left <= 1) return 1;
  mbstate_t st;
  memset(&st, 0, sizeof st);
  size_t n = mbrlen(s, left, &st);
  return n == 0 || n == (size_t)-1 || n == (size_t)-2 ? 1 : n;
}

/* The end of the bracket expression that opens at p ('['): the index after its ']', 0 when
 * it does not close (the '[' is then literal). */
static size_t bracket_end(const char *p) {
  size_t i = 1;
  if (p[i] == '!' || p[i] == '^') i++;
  if (p[i] == ']') i++; /* a ']' first is a member */
  while (p[i] && p[i] != ']') {
    if (p[i] == '\\' && p[i + 1]) {
      i += 2;
    } else if (p[i] == '[' && (p[i + 1] == ':' || p[i + 1] == '=' || p[i + 1] == '.')) {
      char close = p[i + 1];
      size_t j = i + 2;
      while (p[j] && !(p[j] == close && p[j + 1] == ']')) j++;
      if (!p[j]) return 0;
      i = j + 2;
    } else {
      i++;
    }
  }
  return p[i] == ']' ? i + 1 : 0;
}

static void glob_free(glob *g) {
  for (size_t i = 0; i < g->ntok; i++) free(g->tok[i].set);
  free(g->tok);
}

static int glob_compile(glob *g, const char *pat) {
  size_t plen = strlen(pat);
  memset(g, 0, sizeof *g);
  g->tok = calloc(plen + 1, sizeof *g->tok);
  if (!g->tok) return -1;
  for (size_t i = 0; i < plen;) {
    token *t = &g->tok[g->ntok];
    if (pat[i] == '*') {
      if (g->ntok == 0 || g->tok[g->ntok - 1].kind != TOK_STAR) t->kind = TOK_STAR, g->ntok++;
      i++;
      continue;
    }
    if (pat[i] == '?') {
      t->kind = TOK_ANY, g->ntok++, i++;
      continue;
    }
    if (pat[i] == '[') {
      size_t end = bracket_end(pat + i);
      if (end) {
        t->kind = TOK_SET;
        t->set = malloc(end + 1);
        if (!t->set) return glob_free(g), -1;
        memcpy(t->set, pat + i, end);
        t->set[end] = '\0';
        g->ntok++, i += end;
        continue;
      }
    }
    if (pat[i] == '\\') {
      if (++i == plen) {
        g->never = 1;
        break;
      }
    }
    size_t n = char_len(pat + i, plen - i);
    t->kind = TOK_CHAR;
    t->len = (unsigned char)n;
    memcpy(t->bytes, pat + i, n);
    g->ntok++, i += n;
  }
  g->words = g->ntok / 64 + 1;
  return 0;
}

static int has(const uint64_t *s, size_t i) { return (int)(s[i / 64] >> (i % 64) & 1u); }
static void put(uint64_t *s, size_t i) { s[i / 64] |= (uint64_t)1 << (i % 64); }

/* A '*' at a state may match nothing: the state after it is live too. */
static void close_stars(const glob *g, uint64_t *s) {
  for (size_t i = 0; i < g->ntok; i++)
    if (g->tok[i].kind == TOK_STAR && has(s, i)) put(s, i + 1);
}

static int token_takes(const token *t, const char *c, size_t n) {
  switch (t->kind) {
  case TOK_ANY: return 1;
  case TOK_CHAR: return t->len == n && memcmp(t->bytes, c, n) == 0;
  case TOK_SET: {
    char one[MB_LEN_MAX + 1];
    memcpy(one, c, n);
    one[n] = '\0';
    return fnmatch(t->set, one, 0) == 0;
  }
  default: return 0;
  }
}

/* from -> to over the n-byte character c; returns whether any state is live. */
static int step(const glob *g, const uint64_t *from, uint64_t *to, const char *c, size_t n) {
  memset(to, 0, g->words * sizeof *to);
  int live = 0;
  for (size_t w = 0; w < g->words; w++)
    for (uint64_t bits = from[w]; bits; bits &= bits - 1) {
      size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
      if (i >= g->ntok) continue;
      if (g->tok[i].kind == TOK_STAR) put(to, i), live = 1;
      else if (token_takes(&g->tok[i], c, n)) put(to, i + 1), live = 1;
    }
  if (live) close_stars(g, to);
  return live;
}

/* Advances s over a string in place (tmp: scratch of the same size). */
static void advance(const glob *g, uint64_t *s, uint64_t *tmp, const char *str) {
  size_t left = strlen(str);
  while (left) {
    size_t n = char_len(str, left);
    if (!step(g, s, tmp, str, n)) {
      memset(s, 0, g->words * sizeof *s);
      return;
    }
    memcpy(s, tmp, g->words * sizeof *s);
    str += n, left -= n;
  }
}

static int any(const uint64_t *s, size_t words) {
  for (size_t w = 0; w < words; w++)
    if (s[w]) return 1;
  return 0;
}

int jdb_match_contexts(const instr_jdb *db, const char *pattern, unsigned char *set) {
  glob g;
  if (glob_compile(&g, pattern)) return -1;
  if (g.never) {
    memset(set, 0, db->npaths);
    glob_free(&g);
    return 0;
  }
  /* a state per path (parents come before children, open checked it) and one to start */
  uint64_t *state = calloc(((size_t)db->npaths + 2) * g.words, sizeof *state);
  if (!state) {
    glob_free(&g);
    return -1;
  }
  uint64_t *start = state + (size_t)db->npaths * g.words, *tmp = start + g.words;
  put(start, 0);
  close_stars(&g, start);
  for (uint32_t q = 0; q < db->npaths; q++) {
    uint64_t *s = state + (size_t)q * g.words;
    uint32_t parent = jdb_path_parent(db, q);
    if (parent == INSTR_JDB_NO_PARENT) {
      memcpy(s, start, g.words * sizeof *s);
    } else {
      const uint64_t *ps = state + (size_t)parent * g.words;
      if (any(ps, g.words)) {
        memcpy(s, ps, g.words * sizeof *s);
        advance(&g, s, tmp, "/");
      } /* else no continuation of the parent's context can match: s stays empty */
    }
    if (any(s, g.words)) advance(&g, s, tmp, jdb_region_name(db, jdb_path_region(db, q)));
    set[q] = (unsigned char)has(s, g.ntok);
  }
  free(state);
  glob_free(&g);
  return 0;
}
