/* ... and a program that calls it. Prints a result that does not depend on instrumentation. */
#include "kernel.h"

#include <stdio.h>

int main(void)
{
    printf("kernel %.3f\n", kernel_run(10));
    return 0;
}
