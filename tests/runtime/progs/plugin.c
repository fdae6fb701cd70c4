/* A library loaded with dlopen after start-up: its functions (one of them static) must be
 * named from its own symbol table. */
#define NOINLINE __attribute__((noinline))
static volatile int sink;
static NOINLINE void plugin_helper(void) { sink++; }
NOINLINE int plugin_work(int n)
{
    for (int i = 0; i < n; i++)
        plugin_helper();
    return sink;
}
