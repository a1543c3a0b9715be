// relay._core's matrices: process grids and relay_gemm on block-cyclic local arrays.
#include <nanobind/stl/complex.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <complex>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "binding.hpp"
#include "gemm/gemm.hpp"
#include "layout/block_cyclic.hpp"
#include "relay/gemm.h"

namespace relay::python {
namespace {

/// A rows x cols process grid over an mpi4py communicator (relay_grid_t). Freeing is
/// collective: free() it, or use it in a `with` block.
class Grid {
 public:
  Grid(nb::handle comm, int rows, int cols, const std::string& order)
      : comm_(nb::borrow(comm)), mpi_comm_(comm_handle(comm)) {
    if (order != "R" && order != "C") {
      throw StatusError(RELAY_ERR_ARGUMENT, "relay.Grid: order '" + order + "' is not 'R' or 'C'");
    }
    check_status(relay_grid_create(mpi_comm_, rows, cols, order[0], &grid_), "relay.Grid");
  }
  Grid(const Grid&) = delete;
  Grid& operator=(const Grid&) = delete;
  ~Grid() {
    if (grid_ == RELAY_GRID_NULL) return;
    // Freeing is collective and the collector runs on one rank at a time: never here.
    if (PyErr_WarnEx(PyExc_ResourceWarning,
                     "relay.Grid collected without free(): its communicators are leaked", 1) < 0)
      PyErr_Clear();
  }

  void free() {
    if (grid_ != RELAY_GRID_NULL) check_status(relay_grid_free(&grid_), "relay.Grid.free");
  }
  relay_grid_t handle() const {
    if (grid_ == RELAY_GRID_NULL) throw StatusError(RELAY_ERR_ARGUMENT, "the grid was freed");
    return grid_;
  }
  MPI_Comm comm() const { return mpi_comm_; }
  nb::object comm_object() const { return comm_; }
  std::tuple<int, int, int, int> info() const {
    int rows = 0, cols = 0, my_row = 0, my_col = 0;
    check_status(relay_grid_info(handle(), &rows, &cols, &my_row, &my_col), "relay.Grid");
    return {rows, cols, my_row, my_col};
  }

 private:
  nb::object comm_;
  MPI_Comm mpi_comm_;
  relay_grid_t grid_ = RELAY_GRID_NULL;
};

relay_matrix_desc_t descriptor(const std::vector<long long>& d, const char* name) {
  if (d.size() != 9) {
    throw StatusError(RELAY_ERR_ARGUMENT,
                      std::string(name) + ": 9 entries (m, n, mb, nb, imb, inb, rsrc, csrc, lld)");
  }
  relay_matrix_desc_t desc{};
  desc.m = d[0];
  desc.n = d[1];
  desc.mb = d[2];
  desc.nb = d[3];
  desc.imb = d[4];
  desc.inb = d[5];
  desc.rsrc = static_cast<int>(d[6]);
  desc.csrc = static_cast<int>(d[7]);
  desc.lld = d[8];
  return desc;
}

/// Elements a local array needs on this process: lld x (local columns - 1) + local rows. 0 when
/// the descriptor is not valid: relay_gemm reports that, naming the entry, on every rank.
long long local_elements(const relay_matrix_desc_t& d, const Grid& grid) {
  const auto [rows, cols, my_row, my_col] = grid.info();
  const layout::BlockCyclic r{d.imb > 0 ? d.imb : d.mb, d.mb, d.rsrc, rows};
  const layout::BlockCyclic c{d.inb > 0 ? d.inb : d.nb, d.nb, d.csrc, cols};
  if (d.m < 0 || d.n < 0 || layout::block_cyclic_error(r) || layout::block_cyclic_error(c))
    return 0;
  const long long local_rows = layout::local_count(r, my_row, d.m);
  const long long local_cols = layout::local_count(c, my_col, d.n);
  if (local_rows == 0 || local_cols == 0) return 0;
  return d.lld * (local_cols - 1) + local_rows;
}

void check_local(const Buffer& b, const char* name, const relay_matrix_desc_t& d, const Grid& grid,
                 const Buffer& c) {
  if (b.datatype() != c.datatype()) {
    throw StatusError(RELAY_ERR_DATATYPE, std::string("argument ") + name + " holds " +
                                              b.type_name() + ", c " + c.type_name() +
                                              ": they must match");
  }
  if (!b.fortran_contiguous()) {
    throw StatusError(RELAY_ERR_BUFFER, std::string("argument ") + name +
                                            ": local arrays are column-major (numpy order='F')");
  }
  const long long needed = local_elements(d, grid);
  if (b.count() < needed) {
    throw StatusError(RELAY_ERR_COUNT, std::string("argument ") + name +
                                           ": the local array holds " + std::to_string(b.count()) +
                                           " elements, its descriptor needs " +
                                           std::to_string(needed) +
                                           " on this process (lld x (local columns - 1) + "
                                           "local rows)");
  }
}

int gemm_algorithm(nb::handle algorithm) {
  if (nb::isinstance<nb::int_>(algorithm)) return nb::cast<int>(algorithm);
  relay_gemm_algorithm_t a{};
  if (!gemm::algorithm_from_name(nb::cast<std::string>(algorithm), a)) {
    throw StatusError(RELAY_ERR_ALGORITHM, "algorithm: '" + nb::cast<std::string>(algorithm) +
                                               "' is not one of default, 2d, 2.5d, 3d, auto");
  }
  return a;
}

template <class T>
std::vector<unsigned char> scalar_bytes(std::complex<double> value, const char* name) {
  std::vector<unsigned char> bytes(sizeof(T));
  T v{};
  if constexpr (std::is_floating_point_v<T>) {
    if (value.imag() != 0) {
      throw StatusError(RELAY_ERR_ARGUMENT,
                        std::string(name) + ": a complex value for real matrices");
    }
    v = static_cast<T>(value.real());
  } else {
    v = T(static_cast<typename T::value_type>(value.real()),
          static_cast<typename T::value_type>(value.imag()));
  }
  std::memcpy(bytes.data(), &v, sizeof v);
  return bytes;
}

std::vector<unsigned char> scalar(MPI_Datatype type, std::complex<double> value, const char* name) {
  if (type == MPI_FLOAT) return scalar_bytes<float>(value, name);
  if (type == MPI_DOUBLE) return scalar_bytes<double>(value, name);
  if (type == MPI_C_FLOAT_COMPLEX) return scalar_bytes<std::complex<float>>(value, name);
  if (type == MPI_C_DOUBLE_COMPLEX) return scalar_bytes<std::complex<double>>(value, name);
  throw StatusError(RELAY_ERR_DATATYPE,
                    "c: relay.gemm takes float32, float64, complex64 and complex128 matrices");
}

nb::dict gemm(const std::string& transa, const std::string& transb, long long m, long long n,
              long long k, std::complex<double> alpha, nb::handle a_obj, long long ia, long long ja,
              const std::vector<long long>& desca_v, nb::handle b_obj, long long ib, long long jb,
              const std::vector<long long>& descb_v, std::complex<double> beta, nb::handle c_obj,
              long long ic, long long jc, const std::vector<long long>& descc_v, const Grid& grid,
              nb::handle bcast_options, nb::handle algorithm, long long panel_width, int lookahead,
              int pieces, int layers, long long memory_limit_bytes) {
  // The binding's checks fail on the ranks whose arrays are wrong: agree first, as relay_gemm
  // agrees on its own (one small allreduce), so that every rank raises.
  std::optional<StatusError> error;
  Buffer a, b, c;
  relay_matrix_desc_t desca{}, descb{}, descc{};
  std::vector<unsigned char> alpha_bytes, beta_bytes;
  relay_gemm_options_t options;
  relay_gemm_options_init(&options);
  relay_gemm_report_t report;
  relay_gemm_report_init(&report);
  try {
    if (transa.size() != 1 || transb.size() != 1)
      throw StatusError(RELAY_ERR_ARGUMENT, "transa/transb: one of 'N', 'T', 'C'");
    desca = descriptor(desca_v, "desca");
    descb = descriptor(descb_v, "descb");
    descc = descriptor(descc_v, "descc");
    c = Buffer(c_obj, "c", true);
    a = Buffer(a_obj, "a", false);
    b = Buffer(b_obj, "b", false);
    alpha_bytes = scalar(c.datatype(), alpha, "alpha");
    beta_bytes = scalar(c.datatype(), beta, "beta");
    check_local(a, "a", desca, grid, c);
    check_local(b, "b", descb, grid, c);
    check_local(c, "c", descc, grid, c);
    options.algorithm = gemm_algorithm(algorithm);
    options.panel_width = panel_width;
    options.lookahead = lookahead;
    options.pieces = pieces;
    options.layers = layers;
    options.memory_limit_bytes = memory_limit_bytes;
    options.report = &report;
    // The panel broadcasts' options (relay.Options made for bcast), or relay's defaults.
    if (!bcast_options.is_none()) {
      const Options& o = nb::cast<const Options&>(bcast_options);
      if (o.collective != RELAY_COLL_BCAST)
        throw StatusError(RELAY_ERR_OPTIONS, "bcast: options made for another collective");
      options.bcast = &o.bcast;
    }
  } catch (const StatusError& e) {
    error.emplace(StatusError(e.status(), std::string("relay.gemm: ") + e.what()));
  }
  agree_on_arguments(grid.comm(), true, error ? &*error : nullptr);
  int info = 0;
  relay_gemm_stats_t stats{};
  relay_status_t status;
  {
    nb::gil_scoped_release release;
    status = relay_gemm(transa[0], transb[0], m, n, k, c.datatype(), alpha_bytes.data(), a.data(),
                        ia, ja, &desca, b.data(), ib, jb, &descb, beta_bytes.data(), c.data(), ic,
                        jc, &descc, grid.handle(), &options, &info, &stats);
  }
  if (status == RELAY_ERR_ARGUMENT && info != 0) {
    const std::string detail = relay_last_error();
    throw StatusError(status,
                      "relay.gemm: " + detail + " (PBLAS INFO " + std::to_string(info) + ")");
  }
  check_status(status, "relay.gemm");
  nb::dict d;
  d["total_s"] = stats.total_s;
  d["bcast_s"] = stats.bcast_s;
  d["compute_s"] = stats.compute_s;
  d["wait_s"] = stats.wait_s;
  d["panel_count"] = stats.panel_count;
  d["panel_bytes"] = stats.panel_bytes;
  d["aligned_a"] = stats.aligned_a != 0;
  d["aligned_b"] = stats.aligned_b != 0;
  d["workspace_bytes"] = stats.workspace_bytes;
  d["algorithm"] = gemm::algorithm_name(static_cast<relay_gemm_algorithm_t>(report.algorithm));
  d["layers"] = report.layers;
  d["layer_grid"] = nb::make_tuple(report.layer_rows, report.layer_cols);
  d["replicate_s"] = report.replicate_s;
  d["reduce_s"] = report.reduce_s;
  d["layered_bytes"] = report.layered_bytes;
  d["predicted_s"] = report.predicted_s;
  d["panel_bcast_ranks"] = nb::make_tuple(report.panel_bcast_ranks[0], report.panel_bcast_ranks[1]);
  d["panel_bcast_bytes"] = nb::make_tuple(report.panel_bcast_bytes[0], report.panel_bcast_bytes[1]);
  d["panel_bcast_algorithm"] = report.panel_bcast_algorithm;
  d["panel_bcast_segment_bytes"] = report.panel_bcast_segment_bytes;
  d["panel_bcast_by_model"] = report.panel_bcast_by_model != 0;
  d["pieces"] = report.pieces;
  return d;
}

}  // namespace

void bind_matrix(nb::module_& m) {
  nb::class_<Grid>(m, "Grid",
                   "A rows x cols process grid (relay_grid_t) over an mpi4py communicator")
      .def(nb::init<nb::handle, int, int, const std::string&>(), nb::arg("comm"), nb::arg("rows"),
           nb::arg("cols"), nb::arg("order"))
      .def("free", &Grid::free, "Frees the grid's communicators (collective)")
      .def_prop_ro("comm", &Grid::comm_object, "The communicator the grid was made on")
      .def("info", &Grid::info, "(rows, cols, my_row, my_col)");
  m.def("gemm", &gemm, nb::arg("transa"), nb::arg("transb"), nb::arg("m"), nb::arg("n"),
        nb::arg("k"), nb::arg("alpha"), nb::arg("a"), nb::arg("ia"), nb::arg("ja"),
        nb::arg("desca"), nb::arg("b"), nb::arg("ib"), nb::arg("jb"), nb::arg("descb"),
        nb::arg("beta"), nb::arg("c"), nb::arg("ic"), nb::arg("jc"), nb::arg("descc"),
        nb::arg("grid"), nb::arg("bcast_options").none(), nb::arg("algorithm"),
        nb::arg("panel_width"), nb::arg("lookahead"), nb::arg("pieces"), nb::arg("layers"),
        nb::arg("memory_limit_bytes"));
}

}  // namespace relay::python
