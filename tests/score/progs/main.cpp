// main.cpp — the physics: sweeps over the domain through its accessors, then a checksum.
#include "domain.h"
#include <cstdio>
#include <cstdlib>

// One sweep: the real work, six accessor calls per point.
static void advance(Domain &d, double dt)
{
    for (int i = 1; i + 1 < d.size(); i++)
        d.e(i) += dt * (d.x(i + 1) - 2 * d.x(i) + d.x(i - 1) + 1e-3 * d.e(i));
}

static double energy(Domain &d)
{
    double s = 0;
    for (int i = 0; i < d.size(); i++)
        s += d.e(i);
    return s;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? std::atoi(argv[1]) : 20;
    Domain d(20000);
    for (int t = 0; t < steps; t++)
        advance(d, 1e-4);
    std::printf("energy=%.9e\n", energy(d));
    return 0;
}
