/* Many threads, many events (-finstrument-functions): THREADS threads in WAVES waves (all
 * threads of a wave run at once, released together by a barrier), each calling outer()
 * ITER times, outer calling inner() 3 times. Arguments: THREADS WAVES ITER.
 * Enter counts: worker THREADS, outer THREADS*ITER, inner 3*THREADS*ITER, main 1. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static pthread_barrier_t barrier;
static long iterations;
static volatile long sinks[1024];

NOINLINE long inner(long x) { return x + 1; }

NOINLINE long outer(long x)
{
    for (int i = 0; i < 3; i++)
        x = inner(x);
    return x;
}

NOINLINE void *worker(void *arg)
{
    long id = (long)arg, s = 0;
    pthread_barrier_wait(&barrier);
    for (long i = 0; i < iterations; i++)
        s = outer(s);
    sinks[id % 1024] = s;
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 16;
    int waves = argc > 2 ? atoi(argv[2]) : 1;
    iterations = argc > 3 ? atol(argv[3]) : 1000;
    int per_wave = threads / waves;
    if (threads < 1 || waves < 1 || per_wave * waves != threads || per_wave > 1024) {
        fprintf(stderr, "usage: threads THREADS WAVES ITER (WAVES divides THREADS)\n");
        return 2;
    }
    pthread_t *t = malloc((size_t)per_wave * sizeof *t);
    long total = 0;
    for (int w = 0; w < waves; w++) {
        pthread_barrier_init(&barrier, NULL, (unsigned)per_wave);
        for (int i = 0; i < per_wave; i++)
            if (pthread_create(&t[i], NULL, worker, (void *)(long)(w * per_wave + i)) != 0) {
                perror("pthread_create");
                return 1;
            }
        for (int i = 0; i < per_wave; i++)
            pthread_join(t[i], NULL);
        pthread_barrier_destroy(&barrier);
        for (int i = 0; i < per_wave; i++)
            total += sinks[(w * per_wave + i) % 1024];
    }
    free(t);
    printf("total=%ld\n", total);
    return 0;
}
