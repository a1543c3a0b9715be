! An unmodified ScaLAPACK program whose own code calls only pdgesv (no pdgemm): solves
! A x = b for A = n I + ones on a 1 x P grid, x = 1, and checks the solution. Run with relay's
! ScaLAPACK library linked first or preloaded, relay's pdgemm_ serves the calls pdgesv makes
! inside ScaLAPACK (RELAY_LOG=1 says so).
program pdgesv_only
  implicit none
  integer, parameter :: n = 96, nb = 8
  integer :: iam, nprocs, ictxt, nprow, npcol, myrow, mycol, info, mloc, nloc, nloc_b, lld
  integer :: i, j, ig, jg, ri, ci
  integer :: desca(9), descb(9)
  integer, allocatable :: ipiv(:)
  double precision, allocatable :: a(:, :), b(:, :)
  double precision :: errmax
  integer, external :: numroc

  call blacs_pinfo(iam, nprocs)
  nprow = 1
  npcol = nprocs
  call blacs_get(-1, 0, ictxt)
  call blacs_gridinit(ictxt, 'Row', nprow, npcol)
  call blacs_gridinfo(ictxt, nprow, npcol, myrow, mycol)
  mloc = numroc(n, nb, myrow, 0, nprow)
  nloc = numroc(n, nb, mycol, 0, npcol)
  nloc_b = numroc(1, nb, mycol, 0, npcol)
  lld = max(1, mloc)
  call descinit(desca, n, n, nb, nb, 0, 0, ictxt, lld, info)
  call descinit(descb, n, 1, nb, nb, 0, 0, ictxt, lld, info)
  allocate (a(lld, max(1, nloc)), b(lld, max(1, nloc_b)), ipiv(mloc + nb))
  do j = 1, nloc
    jg = ((j - 1)/nb*npcol + mycol)*nb + mod(j - 1, nb) + 1
    do i = 1, mloc
      ig = ((i - 1)/nb*nprow + myrow)*nb + mod(i - 1, nb) + 1
      a(i, j) = 1.0d0
      if (ig == jg) a(i, j) = a(i, j) + n
    end do
  end do
  b = 2.0d0*n  ! A times the vector of ones
  call pdgesv(n, 1, a, 1, 1, desca, ipiv, b, 1, 1, descb, info)
  errmax = 0.0d0
  if (nloc_b > 0) errmax = maxval(abs(b(1:mloc, 1) - 1.0d0))
  call dgamx2d(ictxt, 'All', ' ', 1, 1, errmax, 1, ri, ci, -1, -1, -1)
  if (iam == 0) print '(a, i0, a, es10.3)', 'pdgesv_only: info ', info, ', max error ', errmax
  if (info /= 0 .or. errmax > 1.0d-10) then
    if (iam == 0) print '(a)', 'pdgesv_only: WRONG'
    call blacs_abort(ictxt, 1)
  end if
  if (iam == 0) print '(a)', 'pdgesv_only: solution correct'
  call blacs_gridexit(ictxt)
  call blacs_exit(0)
end program pdgesv_only
