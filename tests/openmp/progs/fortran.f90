! gfortran !$omp on GNU libgomp (check_openmp.py case gomp_fortran): a parallel region with a
! dynamic loop, a static loop (no libgomp call: the GCC plugin marks it), master, a critical
! section and a barrier, known visits per thread.
program constructs
  use omp_lib
  implicit none
  integer :: i, s, c, t, m
  s = 0
  c = 0
  t = 0
  m = 0
  !$omp parallel reduction(+:s, t, m)
  !$omp do schedule(dynamic)
  do i = 1, 64
    s = s + work(i)
  end do
  !$omp end do
  !$omp do schedule(static)
  do i = 1, 64
    t = t + work(i)
  end do
  !$omp end do
  !$omp master
  m = m + 1
  !$omp end master
  !$omp critical
  c = c + 1
  !$omp end critical
  !$omp barrier
  !$omp end parallel
  print '(i0, 1x, i0, 1x, i0, 1x, i0)', s, c, t, m
contains
  integer function work(i)
    integer, intent(in) :: i
    work = mod(i, 7)
  end function
end program
