// domain.h — a small C++ code of the kind instr-score is for: a mesh whose accessors live in
// another translation unit, so every x(i) is a real call that the compiler cannot inline.
#ifndef SCORE_DOMAIN_H
#define SCORE_DOMAIN_H
#include <vector>

class Domain {
public:
    explicit Domain(int n);
    double x(int i) const;
    double &e(int i);
    int size() const;

private:
    std::vector<double> x_, e_;
};

#endif
