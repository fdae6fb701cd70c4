/* no_openacc.c — an OpenMP program: libgomp is loaded, OpenACC is not used
 * (tests/openacc/check.py, case no_openacc). */
#include <stdio.h>

int main(void)
{
    long s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < 100; i++)
        s += i;
    printf("sum %ld\n", s);
    return 0;
}
