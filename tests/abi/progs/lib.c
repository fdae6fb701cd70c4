/* The library of the ABI test (lib_work 5 visits, lib_step 15). */
__attribute__((noinline)) int lib_step(int i)
{
    return 2 * i + 1;
}

__attribute__((noinline)) int lib_work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += lib_step(i);
    return s;
}
