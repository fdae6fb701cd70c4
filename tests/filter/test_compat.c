/* test_compat.c — Score-P and TAU files read as those tools read them, and the spec reader's
 * refusals (issue 16): one group per behaviour, each on a minimal file of its own in
 * fixtures/compat/. Run as `test_compat FIXTURE_DIR GROUP`. */
#define _GNU_SOURCE /* mkdtemp */
#include "check.h"
#include "instr_filter.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *fixtures;
static instr_filter_error err;

/* Loads fixtures/compat/NAME; NULL (and a failed check) if it does not load. */
static instr_filter *load_fixture(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", fixtures, name);
    instr_filter *f = instr_filter_new();
    if (instr_filter_load_file(f, path, INSTR_SPEC_AUTO, &err) != 0) {
        fprintf(stderr, "%s does not load: %s\n", name, err.message);
        check_failures++;
    }
    return f;
}

static int decide(const instr_filter *f, const char *sig, const char *mangled, const char *file,
                  const char *tool_name, const char *resolved)
{
    instr_function_facts x = {.signature = sig, .mangled = mangled, .file = file,
                              .instructions = -1, .tool_name = tool_name,
                              .resolved_file = resolved};
    return instr_filter_decide(f, &x).include;
}

static int in(const instr_filter *f, const char *sig, const char *file)
{
    return decide(f, sig, NULL, file, NULL, NULL);
}

/* 1: INCLUDE/EXCLUDE alone on a line, patterns on later lines */
static void test_keyword_alone(void)
{
    instr_filter *f = load_fixture("01-keyword-alone.filter");
    CHECK(instr_filter_rule_count(f) == 2);
    CHECK(!decide(f, "noisy()", "_Z5noisyv", "/a.cpp", NULL, NULL));
    CHECK(!decide(f, "chatty(int)", "_Z6chattyi", "/a.cpp", NULL, NULL));
    CHECK(decide(f, "quiet()", "_Z5quietv", "/a.cpp", NULL, NULL));
    instr_filter_free(f);
}

/* 2: a '[' no ']' closes is a literal bracket, as in glibc's fnmatch */
static void test_open_bracket(void)
{
    instr_filter *f = load_fixture("02-open-bracket.filter");
    /* the blanks split GCC's spelling into patterns; "[with" is one of them, literal */
    CHECK(!in(f, "[with", "/a.cpp"));
    CHECK(!in(f, "odd[name", "/a.cpp"));
    CHECK(in(f, "oddxname", "/a.cpp"));
    CHECK(!in(f, "void foo<double>(double)", "/a.cpp")); /* by "foo<double>(double)" */
    instr_filter_free(f);
}

/* 3: a block open at the end of the file, '\' as the file's last character */
static void test_open_block(void)
{
    instr_filter *f = load_fixture("03-open-block.filter");
    CHECK(instr_filter_rule_count(f) == 2);
    CHECK(!in(f, "helper_x", "/a.c"));
    CHECK(!in(f, "tail\\", "/a.c")); /* the backslash is literal */
    CHECK(in(f, "tail", "/a.c"));
    instr_filter_free(f);
}

/* 4: names as Score-P's GCC plugin spells them */
static void test_gcc_spelling(void)
{
    instr_filter *f = load_fixture("04-gcc-spelling.filter");
    CHECK(!decide(f, "Neighbor::bindist(int, int, int)", "_ZN8Neighbor7bindistEiii", "/a.cpp",
                  "MMD_float Neighbor::bindist(int, int, int)", NULL));
    /* GCC prints "void foo(T) [with T = double]"; the arguments-in-place spelling of the
     * rule is built from the demangled signature */
    CHECK(!decide(f, "void foo<double>(double)", "_Z3fooIdEvT_", "/a.cpp",
                  "void foo(T) [with T = double]", NULL));
    CHECK(decide(f, "void foo<int>(int)", "_Z3fooIiEvT_", "/a.cpp",
                 "void foo(T) [with T = int]", NULL));
    CHECK(!decide(f, "main", "main", "/a.cpp", "int main(int, char**)", NULL));
    /* without the front end's spelling the rules match nothing else */
    CHECK(decide(f, "main", "main", "/a.cpp", NULL, NULL));
    /* the spelling is Score-P's: a native rule does not look at it */
    instr_filter *n = instr_filter_new();
    static const char native[] = "exclude function \"int main(int, char\\*\\*)\"\n";
    CHECK(instr_filter_load_buffer(n, "n.spec", native, sizeof native - 1, INSTR_SPEC_AUTO,
                                   &err) == 0);
    CHECK(decide(n, "main", "main", "/a.cpp", "int main(int, char**)", NULL));
    instr_filter_free(n);
    instr_filter_free(f);
}

/* 5: file rules see the path with symbolic links resolved too */
static void test_symlink(void)
{
    instr_filter *f = load_fixture("05-symlink.filter");
    CHECK(!decide(f, "f", NULL, "/p/link/a.c", NULL, "/p/realdir/a.c"));
    CHECK(!decide(f, "f", NULL, "/p/realdir/a.c", NULL, NULL));
    CHECK(decide(f, "f", NULL, "/p/link/a.c", NULL, NULL));
    instr_filter_free(f);
}

/* 6: quoted TAU entries */
static void test_quotes(void)
{
    instr_filter *f = load_fixture("06-quotes.tau");
    CHECK(!in(f, "shmem_put", "/a.c"));
    CHECK(!in(f, "my_H5_open", "/a.c"));
    CHECK(in(f, "other", "/a.c"));
    CHECK(!in(f, "other", "/a/generated/b.c"));
    instr_filter_free(f);
}

/* 7: '#' at the start of a function-list line is a comment */
static void test_hash_comment(void)
{
    instr_filter *f = load_fixture("07-hash-comment.tau");
    CHECK(instr_filter_rule_count(f) == 1);
    CHECK(in(f, "x_debug", "/a.c"));
    CHECK(!in(f, "trace_me", "/a.c"));
    instr_filter_free(f);
}

/* 8: an empty file include list restricts nothing */
static void test_empty_include(void)
{
    instr_filter *f = load_fixture("08-empty-include.tau");
    CHECK(in(f, "main", "/p/src/m.c"));
    CHECK(in(f, "solver", "/q/any.c"));
    CHECK(!in(f, "other", "/p/src/m.c"));
    instr_filter_free(f);
}

/* 9: relative file entries match the end of the path */
static void test_relative(void)
{
    instr_filter *f = load_fixture("09-relative.tau");
    CHECK(!in(f, "f", "/home/u/proj/R/R.cpp"));
    CHECK(in(f, "f", "/home/u/proj/XR/R.cpp")); /* at a directory boundary only */
    CHECK(!in(f, "f", "/home/u/lib/z.c"));
    CHECK(!in(f, "f", "/home/u/proj/src/m.c"));
    CHECK(in(f, "f", "/home/u/proj/other/m.c"));
    instr_filter_free(f);
}

/* 10: prototypes with extra blanks */
static void test_blanks(void)
{
    instr_filter *f = load_fixture("10-blanks.tau");
    CHECK(!in(f, "applyR(int, double*)", "/a.cpp"));
    CHECK(!in(f, "spaced(int, const char*)", "/a.cpp"));
    CHECK(!in(f, "applyR", "/a.c")); /* C: the name */
    CHECK(in(f, "applyR(long, double*)", "/a.cpp"));
    instr_filter_free(f);
}

/* 11: loop lists and instrument sections: a warning each, the function lists apply */
static void test_sections(void)
{
    instr_filter *f = load_fixture("11-sections.tau");
    CHECK(instr_filter_warning_count(f) == 2);
    CHECK(instr_filter_warning(f, 0) &&
          strstr(instr_filter_warning(f, 0), "11-sections.tau:1:1: warning: BEGIN_LOOPS_LIST"));
    CHECK(instr_filter_warning(f, 1) &&
          strstr(instr_filter_warning(f, 1), ":4:1: warning: BEGIN_INSTRUMENT_SECTION"));
    CHECK(!in(f, "skip_me", "/a.c"));
    CHECK(in(f, "compute", "/a.c"));
    instr_filter_free(f);
}

static const char *load_error(const char *path)
{
    instr_filter *f = instr_filter_new();
    int rc = instr_filter_load_file(f, path, INSTR_SPEC_AUTO, &err);
    instr_filter_free(f);
    return rc == 0 ? "" : err.message;
}

/* 12: inputs that never end or never come fail at once */
static void test_endless(void)
{
    CHECK(strstr(load_error("/dev/zero"), "not a regular file (a character device)"));
    CHECK(strstr(load_error("/dev/urandom"), "not a regular file (a character device)"));
    char dir[] = "/tmp/instr-compat-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char fifo[64], big[64], bin[64];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(big, sizeof big, "%s/big.spec", dir);
    snprintf(bin, sizeof bin, "%s/bin.spec", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(strstr(load_error(fifo), "not a regular file (a FIFO)")); /* and no wait */
    int fd = open(big, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)INSTR_SPEC_MAX_BYTES + 1) == 0);
    close(fd);
    CHECK(strstr(load_error(big), "more than the limit of 16777216 bytes"));
    fd = open(bin, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    CHECK(fd >= 0 && write(fd, "exclude function a\n\x01", 20) == 20);
    close(fd);
    CHECK(strstr(load_error(bin), "bin.spec:2:1: error: binary data (byte 0x01)"));
    unlink(fifo);
    unlink(big);
    unlink(bin);
    rmdir(dir);
}

/* 13: deep YAML fails fast */
static void test_deep_yaml(void)
{
    size_t depth = 100000;
    char *text = malloc(depth + 1);
    memset(text, '[', depth);
    text[depth] = '\0';
    instr_filter *f = instr_filter_new();
    CHECK(instr_filter_load_buffer(f, "d.yaml", text, depth, INSTR_SPEC_YAML, &err) == -1);
    CHECK_PREFIX(err.message, "d.yaml:1:65: error: YAML nested more than 64 levels");
    instr_filter_free(f);
    free(text);
}

/* 14: a UTF-8 byte-order mark is skipped */
static void test_bom(void)
{
    instr_filter *f = load_fixture("14-bom.filter");
    CHECK(instr_filter_rule_count(f) == 1);
    CHECK(instr_filter_rule(f, 0)->column == 11);
    CHECK(!in(f, "bom_x", "/a.c"));
    instr_filter_free(f);
}

/* 15: messages: every error of a file, YAML keys named, null and tagged values refused */
static void test_messages(void)
{
    CHECK(strstr(load_error("/nonexistent"), "cannot read the spec"));
    char path[4096];
    snprintf(path, sizeof path, "%s/15-many-errors.spec", fixtures);
    const char *m = load_error(path);
    CHECK(err.count == 4);
    CHECK(strstr(m, ":1:19: error: unterminated '['"));
    CHECK(strstr(m, "\n") && strstr(m, ":2:1: error: unknown keyword 'exclud'"));
    CHECK(strstr(m, ":3:19: error: '\\' at the end"));
    CHECK(strstr(m, ":4:9: error: unknown rule target 'funktion'"));
    char plain[8192];
    instr_filter_error_plain(&err, plain, sizeof plain);
    CHECK(strstr(plain, ":1:19: unterminated '['") && !strstr(plain, "error:"));

    /* more errors than are listed: the rest are counted */
    static char many[64 * 30];
    many[0] = '\0';
    for (int i = 0; i < 30; i++)
        strcat(many, "bogus\n");
    instr_filter *f = instr_filter_new();
    CHECK(instr_filter_load_buffer(f, "m.spec", many, strlen(many), INSTR_SPEC_AUTO, &err) == -1);
    CHECK(err.count == INSTR_FILTER_MAX_ERRORS);
    instr_filter_free(f);

    static const struct {
        const char *text, *want;
    } yaml[] = {
        {"rule:\n  - exclude: {function: a}\n", "y.yaml:1:1: error: unknown key 'rule'"},
        {"rules:\n  - exclude: {function: ~}\n", "y.yaml:2:25: error: '~' is YAML's null"},
        {"rules:\n  - exclude: {function: !!binary YQ==}\n",
         "y.yaml:2:25: error: a value tagged !!binary is not a pattern"},
        {"min-instructions: null\n", "y.yaml:1:19: error: 'null' is YAML's null, not a number"},
    };
    for (size_t i = 0; i < sizeof yaml / sizeof yaml[0]; i++) {
        f = instr_filter_new();
        CHECK(instr_filter_load_buffer(f, "y.yaml", yaml[i].text, strlen(yaml[i].text),
                                       INSTR_SPEC_AUTO, &err) == -1);
        CHECK_PREFIX(err.message, yaml[i].want);
        instr_filter_free(f);
    }
    /* an error inside an alias's value is reported where the alias is used */
    static const char alias[] = "rules:\n  - exclude: {function: &p \"a[\"}\n"
                                "  - include: {function: main}\n  - exclude: {file: *p}\n";
    f = instr_filter_new();
    CHECK(instr_filter_load_buffer(f, "y.yaml", alias, sizeof alias - 1, INSTR_SPEC_AUTO,
                                   &err) == -1);
    CHECK(err.count == 2 && strstr(err.message, "\ny.yaml:4:21: error: unterminated '['") &&
          strstr(err.message, "(in the value of alias *p, whose anchor is at line 2)"));
    instr_filter_free(f);

    /* two bad rules: both reported */
    static const char two[] = "rules:\n  - exclude: {function: ~}\n  - drop: {function: a}\n";
    f = instr_filter_new();
    CHECK(instr_filter_load_buffer(f, "y.yaml", two, sizeof two - 1, INSTR_SPEC_AUTO, &err) == -1);
    CHECK(err.count == 2 && strstr(err.message, "y.yaml:3:5: error: expected include or exclude"));
    instr_filter_free(f);
}

int main(int argc, char **argv)
{
    static const check_group groups[] = {
        {"keyword_alone", test_keyword_alone}, {"open_bracket", test_open_bracket},
        {"open_block", test_open_block},       {"gcc_spelling", test_gcc_spelling},
        {"symlink", test_symlink},             {"quotes", test_quotes},
        {"hash_comment", test_hash_comment},   {"empty_include", test_empty_include},
        {"relative", test_relative},           {"blanks", test_blanks},
        {"sections", test_sections},           {"endless", test_endless},
        {"deep_yaml", test_deep_yaml},         {"bom", test_bom},
        {"messages", test_messages},
    };
    if (argc < 2) {
        fprintf(stderr, "usage: test_compat FIXTURE_DIR [GROUP]\n");
        return 2;
    }
    fixtures = argv[1];
    return check_run_groups("test_compat", groups, sizeof groups / sizeof groups[0],
                            argc < 3 ? NULL : argv[2]);
}
