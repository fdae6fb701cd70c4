! heat.f90 — 2-D heat diffusion (Jacobi 5-point stencil) in Fortran: the instr example for
! gfortran (examples/README.md, docs/gcc-plugin.md "Fortran"). A module with module
! procedures, a procedure contained in a module procedure and run by an OpenMP parallel
! loop, a function, and a main program with a contained procedure. instr reports them as a
! Fortran user reads them: heat, heat_mod::init, heat_mod::update,
! heat_mod::update::sweep_column, heat_mod::residual, heat::report.
! Usage: heat (fixed size: 64 x 64 grid, 100 steps, a report every 25 steps).
module heat_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  subroutine init(u, n)
    integer, intent(in) :: n
    real(dp), intent(out) :: u(n, n)
    u = 0.0_dp
    u(:, 1) = 100.0_dp
  end subroutine init

  ! One Jacobi step from u into v; the columns are shared among the OpenMP threads.
  subroutine update(u, v, n)
    integer, intent(in) :: n
    real(dp), intent(in) :: u(n, n)
    real(dp), intent(inout) :: v(n, n)
    integer :: j
    !$omp parallel do schedule(static)
    do j = 2, n - 1
      call sweep_column(j)
    end do
    !$omp end parallel do
  contains
    subroutine sweep_column(j)
      integer, intent(in) :: j
      integer :: i
      do i = 2, n - 1
        v(i, j) = 0.25_dp * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
      end do
    end subroutine sweep_column
  end subroutine update

  real(dp) function residual(u, v, n)
    integer, intent(in) :: n
    real(dp), intent(in) :: u(n, n), v(n, n)
    residual = maxval(abs(v(2:n - 1, 2:n - 1) - u(2:n - 1, 2:n - 1)))
  end function residual
end module heat_mod

program heat
  use heat_mod
  implicit none
  integer, parameter :: n = 64, steps = 100
  real(dp), allocatable :: u(:, :), v(:, :)
  integer :: step
  allocate (u(n, n), v(n, n))
  call init(u, n)
  v = u
  do step = 1, steps
    call update(u, v, n)
    if (mod(step, 25) == 0) call report(step, residual(u, v, n))
    u(2:n - 1, 2:n - 1) = v(2:n - 1, 2:n - 1)
  end do
  print '(a, f16.6)', 'checksum', sum(u)
contains
  subroutine report(step, r)
    integer, intent(in) :: step
    real(dp), intent(in) :: r
    print '(a, i4, a, es12.4)', 'step', step, ' residual', r
  end subroutine report
end program heat
