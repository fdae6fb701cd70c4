// domain.cpp — the mesh and its accessors (tiny, called millions of times from main.cpp).
#include "domain.h"

Domain::Domain(int n) : x_(n), e_(n)
{
    for (int i = 0; i < n; i++) {
        x_[i] = 0.001 * i;
        e_[i] = 1.0;
    }
}

double Domain::x(int i) const { return x_[i]; }
double &Domain::e(int i) { return e_[i]; }
int Domain::size() const { return static_cast<int>(x_.size()); }
