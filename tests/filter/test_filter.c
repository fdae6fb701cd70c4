/* test_filter.c — unit tests of filter/: run as `test_filter GROUP`. */
#include "check.h"
#include "instr_filter.h"

#include <stdlib.h>

static instr_filter *load_as(const char *origin, const char *text, instr_spec_format format)
{
    instr_filter *f = instr_filter_new();
    instr_filter_error err;
    if (instr_filter_load_buffer(f, origin, text, strlen(text), format, &err) != 0) {
        fprintf(stderr, "unexpected load error: %s\n", err.message);
        check_failures++;
    }
    return f;
}

static instr_filter *load(const char *text)
{
    return load_as("t.spec", text, INSTR_SPEC_AUTO);
}

/* The message of the error loading text gives, or "" when it loads. */
static const char *error_of(const char *origin, const char *text, instr_spec_format format)
{
    static instr_filter_error err;
    instr_filter *f = instr_filter_new();
    int rc = instr_filter_load_buffer(f, origin, text, strlen(text), format, &err);
    instr_filter_free(f);
    return rc == 0 ? "" : err.message;
}

static instr_function_facts facts(const char *sig, const char *file)
{
    instr_function_facts x = {.signature = sig, .file = file, .instructions = -1};
    return x;
}

static const char *decision(const instr_filter *f, const instr_function_facts *x)
{
    static char line[1024];
    instr_decision d = instr_filter_decide(f, x);
    instr_decision_format(&d, line, sizeof line);
    return line;
}

static int included(const instr_filter *f, const char *sig, const char *file)
{
    instr_function_facts x = facts(sig, file);
    return instr_filter_decide(f, &x).include;
}

static void test_glob(void)
{
    CHECK(instr_glob_match("*", ""));
    CHECK(instr_glob_match("*", "/a/b/c.c"));
    CHECK(instr_glob_match("*/src/*", "/home/u/src/a/b.c"));     /* '*' crosses '/' */
    CHECK(instr_glob_match("std::*", "std::vector<int>::at(unsigned long)")); /* '::' '(' */
    CHECK(instr_glob_match("*::at", "std::vector<int>::at"));
    CHECK(instr_glob_match("f?o", "foo"));
    CHECK(!instr_glob_match("f?o", "fo"));
    CHECK(instr_glob_match("f?o", "f/o"));                        /* '?' crosses '/' too */
    CHECK(instr_glob_match("[abc]x", "bx"));
    CHECK(!instr_glob_match("[abc]x", "dx"));
    CHECK(instr_glob_match("[!abc]x", "dx"));
    CHECK(instr_glob_match("[a-c]x", "cx"));
    CHECK(instr_glob_match("v[[:digit:]]", "v7"));
    CHECK(instr_glob_match("[]]", "]"));
    CHECK(instr_glob_match("a\\*b", "a*b"));
    CHECK(!instr_glob_match("a\\*b", "axb"));
    CHECK(instr_glob_match("a\\ b", "a b"));
    CHECK(instr_glob_match("a\\#b", "a#b"));
    CHECK(instr_glob_match("operator\\[\\]*", "operator[](int)"));

    const char *what;
    CHECK(instr_glob_check("foo*", &what) == -1);
    CHECK(instr_glob_check("[ab]", &what) == -1);
    CHECK(instr_glob_check("[]ab]", &what) == -1);
    CHECK(instr_glob_check("\\[ab", &what) == -1);
    CHECK(instr_glob_check("x[ab", &what) == 1);
    CHECK(instr_glob_check("[[:alpha:]", &what) == 0);
    CHECK(instr_glob_check("ab\\", &what) == 2);
}

static void test_signature(void)
{
    static const char *const cases[][2] = {
        {"main", "main"},
        {"ns::A::f(int, double) const", "ns::A::f"},
        {"void ns::f<int>(int)", "ns::f<int>"},
        {"std::vector<int, std::allocator<int> >::push_back(int const&)",
         "std::vector<int, std::allocator<int> >::push_back"},
        {"(anonymous namespace)::helper(int)", "(anonymous namespace)::helper"},
        {"(anonymous namespace)::helper", "(anonymous namespace)::helper"},
        {"main::{lambda(int)#1}::operator()(int) const", "main::{lambda(int)#1}::operator()"},
        {"A::operator()(int)", "A::operator()"},
        {"bool operator<(A const&, A const&)", "operator<"},
        {"bool operator< <int>(B<int> const&, B<int> const&)", "operator< <int>"},
        {"A::operator<<(int)", "A::operator<<"},
        {"A::operator->() const", "A::operator->"},
        {"A::operator[](unsigned long)", "A::operator[]"},
        {"operator new(unsigned long)", "operator new"},
        {"operator delete[](void*)", "operator delete[]"},
        {"A::operator unsigned long() const", "A::operator unsigned long"},
        {"unsigned long ns::g<unsigned long>(unsigned long)", "ns::g<unsigned long>"},
        {"std::pair<int, int> ns::mk<int>(int)", "ns::mk<int>"},
        {"foo(int) [clone .constprop.0]", "foo"},
        {"A::~A()", "A::~A"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[256];
        size_t n = instr_signature_name(cases[i][0], buf, sizeof buf);
        CHECK_STR(buf, cases[i][1]);
        CHECK(n == strlen(cases[i][1]));
    }
    char tiny[4];
    CHECK(instr_signature_name("abcdef(int)", tiny, sizeof tiny) == 6);
    CHECK_STR(tiny, "abc");
}

static void test_normalize(void)
{
    static const char *const cases[][2] = {
        /* LLVM's spellings, rewritten to libiberty's */
        {"scaled(int)::'lambda'(int)::operator()(int) const",
         "scaled(int)::{lambda(int)#1}::operator()(int) const"},
        {"f()::'lambda0'(int, char)::operator()(int, char) const",
         "f()::{lambda(int, char)#2}::operator()(int, char) const"},
        {"f()::'lambda12'()::operator()() const", "f()::{lambda()#14}::operator()() const"},
        {"g()::'unnamed'::h()", "g()::{unnamed type#1}::h()"},
        {"g()::'unnamed1'::h()", "g()::{unnamed type#3}::h()"},
        {"std::vector<std::pair<int, int>, std::allocator<std::pair<int, int>>>::size() const",
         "std::vector<std::pair<int, int>, std::allocator<std::pair<int, int> > >::size() const"},
        {"bool operator<<Key>(Key const&, Key const&)",
         "bool operator< <Key>(Key const&, Key const&)"},
        {"S& operator<<<int>(S&, int)", "S& operator<< <int>(S&, int)"},
        /* unchanged: already libiberty's, or not something to rewrite */
        {"bool operator< <Key>(Key const&, Key const&)",
         "bool operator< <Key>(Key const&, Key const&)"},
        {"A::operator>>(int)", "A::operator>>(int)"},
        {"A::operator>>=(int)", "A::operator>>=(int)"},
        {"A::operator<<(int)", "A::operator<<(int)"},
        {"A::operator<=>(A const&) const", "A::operator<=>(A const&) const"},
        {"A::operator->() const", "A::operator->() const"},
        {"operator<(A const&, A const&)", "operator<(A const&, A const&)"},
        {"main::{lambda(int)#1}::operator()(int) const",
         "main::{lambda(int)#1}::operator()(int) const"},
        {"main::$_0::operator()(int) const", "main::$_0::operator()(int) const"},
        {"it's(char)", "it's(char)"},
        {"'lambda'", "'lambda'"},
        {"x'lambda'(", "x'lambda'("},
        {"main", "main"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[512];
        size_t n = instr_demangled_normalize(cases[i][0], buf, sizeof buf);
        CHECK_STR(buf, cases[i][1]);
        CHECK(n == strlen(cases[i][1]));
        /* idempotent */
        char again[512];
        instr_demangled_normalize(buf, again, sizeof again);
        CHECK_STR(again, buf);
    }
    char tiny[5];
    CHECK(instr_demangled_normalize("A<B<C>>", tiny, sizeof tiny) == 8);
    CHECK_STR(tiny, "A<B<");
}

static void test_order(void)
{
    instr_filter *f = load("exclude function *\n"
                           "include function solver::*\n"
                           "exclude function solver::detail::*\n"
                           "include function solver::detail::keep\n");
    CHECK(!included(f, "other()", NULL));
    CHECK(included(f, "solver::run(int)", NULL));
    CHECK(!included(f, "solver::detail::pack()", NULL));
    CHECK(included(f, "solver::detail::keep(int)", NULL));
    instr_function_facts x = facts("solver::detail::pack()", NULL);
    CHECK_STR(decision(f, &x), "exclude function solver::detail::* (t.spec:3:18)");
    x = facts("solver::run(int)", NULL);
    CHECK_STR(decision(f, &x), "include function solver::* (t.spec:2:18)");
    instr_filter_free(f);

    /* no rule: everything is included, by default */
    f = load("# nothing but a comment\n\n");
    CHECK(instr_filter_is_empty(f));
    x = facts("anything(int)", "/x.c");
    CHECK_STR(decision(f, &x), "include default (no rule matched)");
    instr_filter_free(f);

    /* several specs append in order */
    f = load("exclude function foo*\n");
    instr_filter_error err;
    const char *second = "include function foobar\n";
    CHECK(instr_filter_load_buffer(f, "u.spec", second, strlen(second), INSTR_SPEC_AUTO,
                                   &err) == 0);
    CHECK(!included(f, "foobaz", NULL));
    CHECK(included(f, "foobar", NULL));
    x = facts("foobar", NULL);
    CHECK_STR(decision(f, &x), "include function foobar (u.spec:1:18)");
    instr_filter_free(f);
}

static void test_files(void)
{
    instr_filter *f = load("exclude file */include/*\n"
                           "include file */include/app/*\n"
                           "include function *\n"
                           "exclude function noisy*\n");
    CHECK(!included(f, "f()", "/usr/include/stdio.h"));
    CHECK(included(f, "f()", "/home/app/include/app/a.h"));
    /* an excluded file stays excluded, whatever the function rules say */
    instr_filter_free(f);
    f = load("exclude file *.h\ninclude function inl\n");
    CHECK(!included(f, "inl", "/a/b.h"));
    instr_function_facts x = facts("inl", "/a/b.h");
    CHECK_STR(decision(f, &x), "exclude file *.h (t.spec:1:14)");
    CHECK(included(f, "inl", "/a/b.c"));
    /* an unknown file matches no file rule, not even '*' */
    instr_filter_free(f);
    f = load("exclude file *\n");
    CHECK(included(f, "f", NULL));
    CHECK(included(f, "f", ""));
    CHECK(!included(f, "f", "/a.c"));
    /* a file rule that includes decides when no function rule matches */
    instr_filter_free(f);
    f = load("include file */src/*\n");
    x = facts("f", "/p/src/a.c");
    CHECK_STR(decision(f, &x), "include file */src/* (t.spec:1:14)");
    instr_filter_free(f);
}

static void test_names(void)
{
    instr_filter *f = load("exclude function ns::A::f\n"        /* qualified name */
                           "exclude function \"ns::B::g(int)\"\n" /* full signature */
                           "exclude function ns::C::h(int)\\ const\n"
                           "exclude function ns::tpl<int>(int)\n"); /* without return type */
    CHECK(!included(f, "ns::A::f(int, double) const", NULL));
    CHECK(!included(f, "ns::A::f()", NULL));
    CHECK(included(f, "ns::A::ff()", NULL));
    CHECK(!included(f, "ns::B::g(int)", NULL));
    CHECK(included(f, "ns::B::g(long)", NULL));
    CHECK(!included(f, "ns::C::h(int) const", NULL));
    CHECK(included(f, "ns::C::h(int)", NULL));
    CHECK(!included(f, "void ns::tpl<int>(int)", NULL));
    CHECK(included(f, "void ns::tpl<long>(long)", NULL));
    instr_filter_free(f);

    /* a front end may pass the qualified name itself */
    f = load("exclude function ns::given\n");
    instr_function_facts x = facts("weird signature(int)", NULL);
    x.name = "ns::given";
    CHECK(!instr_filter_decide(f, &x).include);
    instr_filter_free(f);

    /* mangled rules match the linkage name only */
    f = load("exclude mangled _ZN6detail*\n");
    x = facts("detail::f(int)", NULL);
    x.mangled = "_ZN6detail1fEi";
    CHECK(!instr_filter_decide(f, &x).include);
    CHECK_STR(decision(f, &x), "exclude mangled _ZN6detail* (t.spec:1:17)");
    x.mangled = "_ZN5other1fEi";
    CHECK(instr_filter_decide(f, &x).include);
    x.mangled = NULL;
    CHECK(instr_filter_decide(f, &x).include);
    CHECK(included(f, "_ZN6detail1fEi", NULL)); /* a function rule it is not */
    instr_filter_free(f);
}

static void test_min_instructions(void)
{
    instr_filter *f = load("include function keep*\n"
                           "include function *\n"
                           "exclude function gone\n"
                           "min-instructions 50\n");
    instr_function_facts x = facts("small(int)", "/a.c");
    x.instructions = 49;
    CHECK_STR(decision(f, &x), "exclude min-instructions 50 (t.spec:4): 49 instructions");
    CHECK_STR(instr_reason_category(&(instr_decision){.reason = INSTR_REASON_MIN_INSTRUCTIONS}),
              "size");
    x.instructions = 50;
    CHECK(instr_filter_decide(f, &x).include);
    x.instructions = -1; /* unknown (run time): the threshold does not apply */
    CHECK(instr_filter_decide(f, &x).include);
    /* exemption 1: main */
    x = facts("main", "/a.c");
    x.instructions = 3;
    CHECK(instr_filter_decide(f, &x).include);
    x = facts("other", "/a.c");
    x.instructions = 3;
    x.is_main = 1;
    CHECK(instr_filter_decide(f, &x).include);
    /* exemption 2: decided by an include rule naming it. Here the last match, and so the
     * deciding rule, is "include function *", which names nothing in particular */
    x = facts("keep_me(int)", "/a.c");
    x.instructions = 3;
    CHECK_STR(decision(f, &x), "exclude min-instructions 50 (t.spec:4): 3 instructions");
    instr_filter_free(f);

    f = load("include function keep*\nmin-instructions 10\n");
    x = facts("keep_me(int)", "/a.c");
    x.instructions = 3;
    CHECK_STR(decision(f, &x), "include function keep* (t.spec:1:18)");
    x = facts("other(int)", "/a.c");
    x.instructions = 3;
    CHECK(!instr_filter_decide(f, &x).include);
    instr_filter_free(f);

    /* an include file rule does not name a function: no exemption */
    f = load("include file *\nmin-instructions 10\n");
    x = facts("tiny", "/a.c");
    x.instructions = 2;
    CHECK(!instr_filter_decide(f, &x).include);
    instr_filter_free(f);

    /* the later threshold wins, and says where it came from */
    f = load("min-instructions 10\nmin-instructions 5 # later\n");
    const char *origin;
    unsigned line;
    CHECK(instr_filter_min_instructions(f, &origin, &line) == 5);
    CHECK(line == 2);
    instr_filter_free(f);
}

static void test_builtins(void)
{
    instr_filter *f = load("include function *\n");
    instr_function_facts x = facts("f(int)", "/a.c");
    x.builtin_flags = INSTR_BUILTIN_FLAG(INSTR_BUILTIN_DECLARATION);
    CHECK_PREFIX(decision(f, &x), "exclude built-in declaration (");
    x.builtin_flags = INSTR_BUILTIN_FLAG(INSTR_BUILTIN_NON_HOST);
    CHECK_PREFIX(decision(f, &x), "exclude built-in non-host (");
    x.builtin_flags = INSTR_BUILTIN_FLAG(INSTR_BUILTIN_NAKED);
    CHECK_PREFIX(decision(f, &x), "exclude built-in naked (");
    x.builtin_flags = INSTR_BUILTIN_FLAG(INSTR_BUILTIN_ARTIFICIAL);
    CHECK_PREFIX(decision(f, &x), "exclude built-in artificial (");
    x.builtin_flags = 0;
    CHECK(instr_filter_decide(f, &x).include);

    static const char *const runtime_names[] = {"__instr_enter", "instr_region_begin",
                                                "__cyg_profile_func_enter", "__xray_FunctionEntry",
                                                "__asan_report_load8"};
    for (size_t i = 0; i < sizeof runtime_names / sizeof runtime_names[0]; i++) {
        x = facts(runtime_names[i], "/rt.c");
        x.mangled = runtime_names[i];
        CHECK_PREFIX(decision(f, &x), "exclude built-in runtime (");
    }
    static const char *const generated[] = {"__cxx_global_var_init.1", "_GLOBAL__sub_I_main.cpp",
                                            "_ZThn8_N1B1fEv", "_ZTv0_n24_N1B1gEv", "_ZTW3tls",
                                            "__clang_call_terminate"};
    for (size_t i = 0; i < sizeof generated / sizeof generated[0]; i++) {
        x = facts("whatever", "/a.cpp");
        x.mangled = generated[i];
        CHECK_PREFIX(decision(f, &x), "exclude built-in artificial (");
    }
    /* built-ins win over an explicit include */
    instr_filter_free(f);
    f = load("include function __instr_enter\n");
    x = facts("__instr_enter", "/rt.c");
    CHECK(!instr_filter_decide(f, &x).include);
    instr_filter_free(f);
    /* OpenMP outlined bodies (clang and gcc): excluded, also when gcc marks them artificial;
     * an include rule naming the outlining re-includes them, one naming the function not */
    static const char *const outlined[] = {"_ZN2ns4calcERNS_6DomainEi.omp_outlined",
                                           "main.omp_outlined_debug__", ".omp_task_entry.",
                                           ".omp.reduction.reduction_func", "main._omp_fn.0",
                                           "_Z1fv._omp_cpyfn.1"};
    f = load("include function main\n");
    for (size_t i = 0; i < sizeof outlined / sizeof outlined[0]; i++) {
        x = facts("main", "/a.cpp");
        x.mangled = outlined[i];
        CHECK_PREFIX(decision(f, &x), "exclude built-in outlined (");
        x.builtin_flags = INSTR_BUILTIN_FLAG(INSTR_BUILTIN_ARTIFICIAL);
        CHECK_PREFIX(decision(f, &x), "exclude built-in outlined (");
    }
    instr_filter_free(f);
    f = load("include mangled *.omp_outlined*\n");
    x = facts("main", "/a.cpp");
    x.mangled = "main.omp_outlined";
    CHECK(instr_filter_decide(f, &x).include);
    x.mangled = "main._omp_fn.0";
    CHECK(!instr_filter_decide(f, &x).include);
    instr_filter_free(f);
    for (int b = INSTR_BUILTIN_NONE + 1; b < INSTR_BUILTIN_COUNT; b++) {
        CHECK(strlen(instr_builtin_name((instr_builtin)b)) > 0);
        CHECK(strlen(instr_builtin_description((instr_builtin)b)) > 10);
    }
}

static void test_native_syntax(void)
{
    instr_filter *f = load("  # comment line\n"
                           "exclude   function   a b \"c d\"  # trailing comment\n"
                           "include file\t*/x\\ y/*\r\n"
                           "exclude function e\\#f\n"
                           "exclude function q\\\"uo\\ te\n");
    CHECK(instr_filter_rule_count(f) == 6);
    CHECK_STR(instr_filter_rule(f, 2)->pattern, "c d");
    CHECK(instr_filter_rule(f, 2)->column == 27);
    CHECK_STR(instr_filter_rule(f, 3)->pattern, "*/x\\ y/*");
    CHECK(instr_filter_rule(f, 3)->target == INSTR_TARGET_FILE);
    CHECK(!included(f, "e#f", NULL));
    CHECK(!included(f, "c d", NULL));
    /* formatted rules parse back to the same rules */
    char text[4096] = "";
    for (size_t i = 0; i < instr_filter_rule_count(f); i++) {
        char line[256];
        instr_rule_format(instr_filter_rule(f, i), line, sizeof line);
        strcat(text, line);
        strcat(text, "\n");
    }
    instr_filter *g = load(text);
    CHECK(instr_filter_rule_count(g) == instr_filter_rule_count(f));
    for (size_t i = 0; i < instr_filter_rule_count(f) && i < instr_filter_rule_count(g); i++) {
        const char *pattern = instr_filter_rule(f, i)->pattern;
        if (strchr(pattern, '"')) /* escaped, not quoted: another string, the same glob */
            CHECK(instr_glob_match(instr_filter_rule(g, i)->pattern, "q\"uo te"));
        else
            CHECK_STR(instr_filter_rule(g, i)->pattern, pattern);
        CHECK(instr_filter_rule(g, i)->include == instr_filter_rule(f, i)->include);
        CHECK(instr_filter_rule(g, i)->target == instr_filter_rule(f, i)->target);
    }
    instr_filter_free(g);
    instr_filter_free(f);
}

static void test_scorep(void)
{
    instr_filter *f = load_as("s.filter",
                              "# Score-P filter\r\n"
                              "SCOREP_REGION_NAMES_BEGIN\r\n"
                              "  EXCLUDE *\r\n"
                              "  INCLUDE main\r\n"
                              "          solver::*   # continued on the next line\r\n"
                              "          MANGLED _ZN4keep*\r\n"
                              "          DEMANGLED demangled_again\r\n"
                              "  EXCLUDE has\\ space with\\#hash\r\n"
                              "  INCLUDE MANGLED only_mangled\r\n"
                              "  EXCLUDE back_to_demangled\r\n"
                              "SCOREP_REGION_NAMES_END\r\n"
                              "SCOREP_FILE_NAMES_BEGIN\r\n"
                              "  EXCLUDE */generated/*\r\n"
                              "SCOREP_FILE_NAMES_END\r\n",
                              INSTR_SPEC_AUTO);
    CHECK(instr_filter_rule_count(f) == 10);
    CHECK(included(f, "main", "/a.c"));
    CHECK(included(f, "solver::x(int)", "/a.c"));
    CHECK(!included(f, "other()", "/a.c"));
    CHECK(!included(f, "solver::x(int)", "/a/generated/b.c"));
    CHECK(instr_filter_rule(f, 3)->target == INSTR_TARGET_MANGLED);
    CHECK(instr_filter_rule(f, 4)->target == INSTR_TARGET_FUNCTION); /* DEMANGLED again */
    CHECK(instr_filter_rule(f, 7)->target == INSTR_TARGET_MANGLED);
    CHECK(instr_filter_rule(f, 8)->target == INSTR_TARGET_FUNCTION); /* reset per rule */
    CHECK(instr_filter_rule(f, 2)->line == 5);
    instr_function_facts x = facts("k::f()", "/a.c");
    x.mangled = "_ZN4keep1fEv";
    CHECK(instr_filter_decide(f, &x).include);
    CHECK(!included(f, "has space", "/a.c"));
    CHECK(!included(f, "with#hash", "/a.c"));
    x = facts("only_mangled", "/a.c");
    CHECK(!instr_filter_decide(f, &x).include); /* only as a linkage name */
    x.mangled = "only_mangled";
    CHECK(instr_filter_decide(f, &x).include);
    instr_filter_free(f);

    /* INCLUDE * after EXCLUDE everything */
    f = load("SCOREP_REGION_NAMES_BEGIN\nEXCLUDE foo*\nINCLUDE *\nSCOREP_REGION_NAMES_END\n");
    CHECK(included(f, "foobar", NULL));
    instr_filter_free(f);
}

static void test_tau(void)
{
    instr_filter *f = load_as("select.tau",
                              "# TAU selective instrumentation\n"
                              "BEGIN_EXCLUDE_LIST\n"
                              "void quicksort(int *, int, int)\n"
                              "void sort_#(int *)\n"
                              "int interchange?(int *, int *)\n"
                              "Foo::bar(double &) const\n"
                              "\"#::operator[](#)\"\n" /* a leading '#' is quoted */
                              "END_EXCLUDE_LIST\n"
                              "BEGIN_FILE_EXCLUDE_LIST\n"
                              "# comments are allowed in file lists\n"
                              "Main.cpp\n"
                              "*.inc\n"
                              "src/gen?/*\n"
                              "END_FILE_EXCLUDE_LIST\n",
                              INSTR_SPEC_AUTO);
    /* C: prototypes match the plain name */
    CHECK(!included(f, "quicksort", "/a/s.c"));
    CHECK(included(f, "quicksort2", "/a/s.c"));
    CHECK(!included(f, "sort_5elements", "/a/s.c"));
    CHECK(!included(f, "interchange1", "/a/s.c"));
    CHECK(included(f, "interchange12", "/a/s.c"));
    /* C++: the prototype without its return type matches the demangled signature */
    CHECK(!included(f, "quicksort(int*, int, int)", "/a/s.cpp"));
    CHECK(included(f, "quicksort(long*, int, int)", "/a/s.cpp")); /* another overload */
    CHECK(!included(f, "sort_5elements(int*)", "/a/s.cpp"));
    CHECK(!included(f, "Foo::bar(double&) const", "/a/s.cpp"));
    CHECK(included(f, "Foo::bar(double&)", "/a/s.cpp"));
    CHECK(!included(f, "Vec<int>::operator[](unsigned long)", "/a/s.cpp"));
    /* files: a bare name matches in any directory, '*' and '?' are wildcards */
    CHECK(!included(f, "f", "/x/y/Main.cpp"));
    CHECK(included(f, "f", "/x/y/NotMain.cpp"));
    CHECK(!included(f, "f", "/x/t.inc"));
    CHECK(!included(f, "f", "/p/src/gen1/a.c"));
    CHECK(included(f, "f", "/p/src/gen12/a.c"));
    instr_filter_free(f);

    /* an include list means: only what it lists */
    f = load_as("inc.tau",
                "BEGIN_INCLUDE_LIST\nint main(int, char **) C\nsolver::#\nEND_INCLUDE_LIST\n"
                "BEGIN_FILE_INCLUDE_LIST\n*/src/*\nEND_FILE_INCLUDE_LIST\n",
                INSTR_SPEC_AUTO);
    CHECK(included(f, "main", "/p/src/m.c"));
    CHECK(included(f, "main(int, char**)", "/p/src/m.cpp"));
    CHECK(included(f, "solver::go()", "/p/src/s.cpp"));
    CHECK(!included(f, "other()", "/p/src/s.cpp"));
    CHECK(!included(f, "solver::go()", "/p/lib/s.cpp"));
    instr_function_facts x = facts("other()", "/p/src/s.cpp");
    CHECK_STR(decision(f, &x), "exclude function * (inc.tau:1:1)");
    instr_filter_free(f);
}

static void test_yaml(void)
{
    instr_filter *f = load_as("r.yaml",
                              "rules:\n"
                              "  - exclude: {function: \"*\"}\n"
                              "  - include:\n"
                              "      function: [main, \"solver::*\"]\n"
                              "      mangled: _ZN4keep*\n"
                              "  - exclude: {file: '*/generated/*'}\n"
                              "min-instructions: 7\n",
                              INSTR_SPEC_AUTO);
    CHECK(instr_filter_rule_count(f) == 5);
    CHECK(instr_filter_rule(f, 1)->line == 4);
    CHECK(instr_filter_rule(f, 1)->column == 18);
    CHECK(instr_filter_rule(f, 3)->target == INSTR_TARGET_MANGLED);
    CHECK(included(f, "solver::x()", "/a.c"));
    CHECK(!included(f, "solver::x()", "/a/generated/x.c"));
    CHECK(!included(f, "other()", "/a.c"));
    CHECK(instr_filter_min_instructions(f, NULL, NULL) == 7);
    instr_filter_free(f);
    /* detected by content too, and an empty document is an empty spec */
    CHECK(instr_spec_detect("spec", "rules:\n  - include: {function: a}\n", 31) ==
          INSTR_SPEC_YAML);
    CHECK(instr_spec_detect("x.yml", "", 0) == INSTR_SPEC_YAML);
    f = load_as("empty.yaml", "# nothing\n", INSTR_SPEC_AUTO);
    CHECK(instr_filter_is_empty(f));
    instr_filter_free(f);
}

static void test_detect(void)
{
    CHECK(instr_spec_detect("a.spec", "exclude function x\n", 19) == INSTR_SPEC_NATIVE);
    CHECK(instr_spec_detect("a.filter", "# c\nSCOREP_REGION_NAMES_BEGIN\n", 28) ==
          INSTR_SPEC_SCOREP);
    CHECK(instr_spec_detect("a.txt", "\n  BEGIN_EXCLUDE_LIST\n", 22) == INSTR_SPEC_TAU);
    CHECK(instr_spec_detect("a", "min-instructions: 4\n", 20) == INSTR_SPEC_YAML);
    CHECK(instr_spec_detect("a", "min-instructions 4\n", 19) == INSTR_SPEC_NATIVE);
    CHECK_STR(instr_spec_format_name(INSTR_SPEC_TAU), "tau");
}

/* Every malformed input: an error naming file:line:column, and the filter unchanged. */
static void test_errors(void)
{
    static const struct {
        const char *origin, *text, *want;
    } cases[] = {
        {"n.spec", "exclude function a\nexclud function b\n",
         "n.spec:2:1: error: unknown keyword 'exclud'"},
        {"n.spec", "include\n", "n.spec:1:9: error: 'include' needs what to match"},
        {"n.spec", "include funktion x\n", "n.spec:1:9: error: unknown rule target 'funktion'"},
        {"n.spec", "\n\nexclude file   \n", "n.spec:3:14: error: missing pattern after"},
        {"n.spec", "exclude function ab[cd\n", "n.spec:1:20: error: unterminated '['"},
        {"n.spec", "exclude function \"ab\n", "n.spec:1:18: error: unterminated quoted"},
        {"n.spec", "exclude function ab\\", "n.spec:1:20: error: '\\' at the end"},
        {"n.spec", "min-instructions x1\n", "n.spec:1:18: error: bad number 'x1'"},
        {"n.spec", "min-instructions -3\n", "n.spec:1:18: error: bad number '-3'"},
        {"n.spec", "min-instructions 99999999999999999999\n", "n.spec:1:18: error: bad number"},
        {"n.spec", "min-instructions\n", "n.spec:1:18: error: min-instructions needs a number"},
        {"n.spec", "min-instructions 4 5\n", "n.spec:1:20: error: unexpected '5'"},
        {"b.spec", "exclude \x01\x02\x03", "b.spec:1:9: error: binary data"},
        {"b.spec", "ok\n\x7f""ELF", "b.spec:2:1: error: binary data (byte 0x7f)"},
        {"s.filter", "SCOREP_REGION_NAMES_BEGIN\n  foo\nSCOREP_REGION_NAMES_END\n",
         "s.filter:2:3: error: pattern 'foo' before INCLUDE or EXCLUDE"},
        {"s.filter", "SCOREP_FILE_NAMES_BEGIN\nEXCLUDE MANGLED x\nSCOREP_FILE_NAMES_END\n",
         "s.filter:2:9: error: MANGLED applies to region names only"},
        {"s.filter", "SCOREP_REGION_NAMES_BEGIN\nSCOREP_FILE_NAMES_BEGIN\n",
         "s.filter:2:1: error: 'SCOREP_FILE_NAMES_BEGIN' inside the block"},
        {"s.filter", "SCOREP_REGION_NAMES_END\n", "s.filter:1:1: error: unexpected"},
        {"t.tau", "BEGIN_EXCLUDE_LIST\nfoo\n", "t.tau:1:1: error: unterminated list"},
        {"t.tau", "BEGIN_EXCLUDE_LIST\nfoo\nEND_INCLUDE_LIST\n",
         "t.tau:3:1: error: 'END_INCLUDE_LIST' inside BEGIN_EXCLUDE_LIST"},
        {"t.tau", "BEGIN_EXCLUDE_LIST\nEND_EXCLUDE_LIST\nfoo\n",
         "t.tau:3:1: error: unexpected 'foo' outside a list"},
        {"y.yaml", "rules:\n  - exclude: {function: [a, [b]]}\n",
         "y.yaml:2:29: error: expected a pattern (a string), found a list"},
        {"y.yaml", "rules: {exclude: x}\n", "y.yaml:1:8: error: expected a list of rules"},
        {"y.yaml", "rules:\n  - drop: {function: a}\n", "y.yaml:2:5: error: expected include or exclude"},
        {"y.yaml", "rules:\n  - exclude: {}\n", "y.yaml:2:14: error: missing pattern"},
        {"y.yaml", "rules:\n  - exclude: {symbol: a}\n",
         "y.yaml:2:15: error: expected file, function or mangled"},
        {"y.yaml", "rules:\n  - exclude: {function: \"a[\"}\n", "y.yaml:2:27: error: unterminated '['"},
        {"y.yaml", "min-instructions: lots\n", "y.yaml:1:19: error: bad number 'lots'"},
        {"y.yaml", "min-instructions: [1]\n", "y.yaml:1:19: error: expected a whole number"},
        {"y.yaml", "rule:\n  - exclude: {function: a}\n", "y.yaml:1:1: error: unknown key"},
        {"y.yaml", "rules: [\n", "y.yaml:2:1: error: YAML syntax"},
        {"y.yaml", "- a\n- b\n", "y.yaml:1:1: error: expected a mapping"},
        {"y.yaml", "rules: []\n---\nrules: []\n", "y.yaml:3:1: error: a second YAML document"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = strlen(cases[i].text);
        instr_filter *f = load("exclude function before\n");
        instr_filter_error err;
        int rc = instr_filter_load_buffer(f, cases[i].origin, cases[i].text, len,
                                          INSTR_SPEC_AUTO, &err);
        CHECK(rc == -1);
        if (rc == -1)
            CHECK_PREFIX(err.message, cases[i].want);
        /* nothing of a broken spec is kept; what was loaded before stays */
        CHECK(instr_filter_rule_count(f) == 1);
        CHECK(instr_filter_min_instructions(f, NULL, NULL) == -1);
        instr_filter_free(f);
    }
    /* NUL bytes, which no C string literal above can carry */
    static const char with_nuls[] = "ok\nELF\0\0";
    instr_filter_error nul_err;
    instr_filter *nf = instr_filter_new();
    CHECK(instr_filter_load_buffer(nf, "b.spec", with_nuls, sizeof with_nuls - 1,
                                   INSTR_SPEC_AUTO, &nul_err) == -1);
    CHECK_PREFIX(nul_err.message, "b.spec:2:4: error: binary data (byte 0x00)");
    instr_filter_free(nf);

    /* forced formats read the text as that spelling */
    CHECK_PREFIX(error_of("x", "exclude function a\n", INSTR_SPEC_SCOREP),
                 "x:1:1: error: unexpected 'exclude' outside a block");
    CHECK_STR(error_of("x", "exclude function a\n", INSTR_SPEC_NATIVE), "");

    instr_filter *f = instr_filter_new();
    instr_filter_error err;
    CHECK(instr_filter_load_file(f, "/nonexistent/dir/x.spec", INSTR_SPEC_AUTO, &err) == -1);
    CHECK_PREFIX(err.message, "/nonexistent/dir/x.spec: error: cannot read the spec: No such file");
    CHECK(instr_filter_load_file(f, ".", INSTR_SPEC_AUTO, &err) == -1);
    CHECK_PREFIX(err.message, ".: error: not a regular file (a directory)");
    instr_filter_free(f);
}

int main(int argc, char **argv)
{
    static const check_group groups[] = {
        {"glob", test_glob},       {"signature", test_signature},
        {"normalize", test_normalize},
        {"order", test_order},     {"files", test_files},
        {"names", test_names},     {"min_instructions", test_min_instructions},
        {"builtins", test_builtins}, {"native", test_native_syntax},
        {"scorep", test_scorep},   {"tau", test_tau},
        {"yaml", test_yaml},       {"detect", test_detect},
        {"errors", test_errors},
    };
    return check_run_groups("test_filter", groups, sizeof groups / sizeof groups[0],
                            argc < 2 ? NULL : argv[1]);
}
