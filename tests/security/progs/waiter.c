/* waiter.c — works, waits until the file argv[1] exists, works again and prints "done":
 * work() is called exactly 20 times. "-" waits for nothing. The tests use the pause to act
 * on the experiment directory as another user while the program records. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void work(void)
{
    for (int i = 0; i < 100; i++)
        sink += (unsigned long)i;
}

int main(int argc, char **argv)
{
    const char *go = argc > 1 ? argv[1] : "-";
    for (int i = 0; i < 10; i++)
        work();
    printf("waiting\n");
    fflush(stdout);
    for (int i = 0; strcmp(go, "-") != 0 && access(go, F_OK) != 0 && i < 60000; i++) {
        usleep(1000);
    }
    for (int i = 0; i < 10; i++)
        work();
    printf("done\n");
    return 0;
}
