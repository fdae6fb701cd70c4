/* signals.c — a program that runs until a signal ends it.
 *   signals loop    calls work() 1000 times, prints "ready", then calls work() until killed
 *   signals own     installs its own SIGTERM handler after start-up (it prints and exits 7)
 *   signals if_default   the same, but only when it finds SIGTERM's disposition the default
 *                   (as some interpreters do for SIGINT)
 *   signals abort   calls work() 1000 times, then abort() */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

NOINLINE void work(void)
{
    for (int i = 0; i < 200; i++)
        sink += (unsigned long)i;
}

static void own_handler(int sig)
{
    (void)sig;
    static const char msg[] = "own handler\n";
    ssize_t w = write(1, msg, sizeof msg - 1);
    (void)w;
    _exit(7);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "loop";
    if (strcmp(mode, "abort") == 0) {
        for (int i = 0; i < 1000; i++)
            work();
        abort();
    }
    struct sigaction now;
    sigaction(SIGTERM, NULL, &now);
    if (strcmp(mode, "own") == 0 || (strcmp(mode, "if_default") == 0 && now.sa_handler == SIG_DFL)) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = own_handler;
        sigaction(SIGTERM, &sa, NULL);
    }
    for (int i = 0; i < 1000; i++)
        work();
    printf("ready\n");
    fflush(stdout);
    for (;;)
        work();
}
