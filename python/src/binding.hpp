// What relay._core's files share: relay's errors as Python exceptions, Python buffers as MPI
// buffers, and mpi4py's handles. Every check here runs before anything is sent, and names the
// argument as the Python functions call it.
#pragma once

#include <Python.h>
#include <mpi.h>
#include <nanobind/nanobind.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "relay/relay.h"

namespace relay::python {

namespace nb = nanobind;

/// A relay status with its message; raised in Python as relay.Error (status, status_name).
class StatusError : public std::runtime_error {
 public:
  StatusError(relay_status_t status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  relay_status_t status() const { return status_; }

 private:
  relay_status_t status_;
};

/// The options of one call, in relay's C structs: names resolved and values range-checked by
/// relay's own functions when the Python call is made, before any buffer is looked at.
struct Options {
  relay_collective_t collective = RELAY_COLL_BCAST;
  relay_bcast_options_t bcast{};
  relay_coll_options_t coll{};

  relay_check_t check() const { return collective == RELAY_COLL_BCAST ? bcast.check : coll.check; }
};

/// Throws StatusError for a failed C call, with relay_last_error()'s explanation.
void check_status(relay_status_t status, const char* function);

/// A Python object's buffer, held (and the object kept alive) until this is destroyed.
class Buffer {
 public:
  Buffer() = default;
  /// Takes obj's buffer; `writable` for buffers relay writes into. Throws StatusError naming
  /// `argument` when obj has no buffer, is read-only, is not contiguous or has an element type
  /// MPI cannot name.
  Buffer(nb::handle obj, const char* argument, bool writable);
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  bool empty() const { return !held_; }
  void* data() const { return view_.buf; }
  long long count() const { return held_ ? view_.len / view_.itemsize : 0; }
  MPI_Datatype datatype() const { return datatype_; }
  const std::string& type_name() const { return type_name_; }
  /// Whether the elements are in Fortran (column-major) order; 1-D buffers are both.
  bool fortran_contiguous() const;
  /// count() as an MPI count; RELAY_ERR_COUNT naming the argument when it does not fit.
  int mpi_count(const char* argument) const;

 private:
  Py_buffer view_{};
  bool held_ = false;
  MPI_Datatype datatype_ = MPI_DATATYPE_NULL;
  std::string type_name_;
};

/// mpi4py's communicator and operation handles, through mpi4py's C API (no copies).
MPI_Comm comm_handle(nb::handle comm);
MPI_Op op_handle(nb::handle op);

/// Whether relay checks arguments collectively for this call: check = "collective", or
/// "default" with RELAY_CHECK=collective.
bool check_is_collective(relay_check_t check);

/// With a collective check, the ranks agree on the binding's own checks before relay runs: a rank
/// whose arguments failed them raises its error, the others RELAY_ERR_MISMATCH naming the
/// failed rank, on every rank. `local` is this rank's error, or null.
void agree_on_arguments(MPI_Comm comm, bool collective, const StatusError* local);
/// The same over several communicators in turn (the chained overlap: a row, then a column).
void agree_on_arguments(const std::vector<MPI_Comm>& comms, bool collective,
                        const StatusError* local);

void bind_matrix(nb::module_& m);

}  // namespace relay::python
