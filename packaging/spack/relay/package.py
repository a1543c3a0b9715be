# Spack recipe for relay (copy this directory into a Spack repository's packages/ and run
# `spack install relay ^openmpi` or `^mpich`). Spack builds one relay per MPI in its own prefix,
# as the Debian packages do (relay-openmpi, relay-mpich).
#
# Not yet exercised by relay's CI: Spack is not available on the CI machine (no PyPI package;
# its repository is not reachable there). `python3 -m py_compile` checks the file's syntax only.

from spack.package import *


class Relay(CMakePackage):
    """Fast collectives on MPI point-to-point for distributed dense linear algebra: segmented,
    pre-posted broadcasts and reductions with an autotuner, a ScaLAPACK-compatible p?gemm
    (SUMMA with pipelined panel broadcasts, 2.5D and 3D) and its drop-in library, and
    SymmSquareCube for density-matrix purification."""

    homepage = "https://relay.invalid"
    git = "https://relay.invalid/relay.git"

    version("main", branch="main")

    variant("scalapack", default=True,
            description="Build librelay_scalapack, the p?gemm_ drop-in (needs ScaLAPACK)")
    variant("cli", default=True,
            description="Build the relay command (benchmarks, tuner, model, simulate, purify)")

    depends_on("cmake@3.20:", type="build")
    depends_on("mpi@3:")
    depends_on("openblas")  # CMakeLists.txt asks for BLA_VENDOR OpenBLAS
    depends_on("fmt@9:")
    depends_on("nlohmann-json@3.10:")
    depends_on("cli11@2:", when="+cli")
    depends_on("lapack", when="+cli")  # relay purify's check (LAPACKE)
    depends_on("netlib-scalapack", when="+scalapack")
    depends_on("googletest", type="test")
    depends_on("python", type="run", when="+cli")  # the plot scripts
    depends_on("py-matplotlib", type="run", when="+cli")

    def cmake_args(self):
        return [
            self.define("RELAY_BUILD_TESTS", self.run_tests),
            self.define_from_variant("RELAY_BUILD_CLI", "cli"),
            self.define("RELAY_CHECK_HEADERS", False),
            self.define("MPI_C_COMPILER", self.spec["mpi"].mpicc),
            self.define("MPI_CXX_COMPILER", self.spec["mpi"].mpicxx),
        ]

    def check(self):
        with working_dir(self.build_directory):
            ctest("--output-on-failure", "-LE", "^(package|cluster)$")
