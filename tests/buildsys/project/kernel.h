#ifndef BUILDSYS_KERNEL_H
#define BUILDSYS_KERNEL_H
double kernel_step(double x);
double kernel_run(int steps);
#endif
