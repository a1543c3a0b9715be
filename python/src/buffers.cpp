// Python buffers as MPI buffers, mpi4py handles, relay's errors as Python exceptions.
#include <cstdlib>
#include <cstring>
#include <string>

#include "binding.hpp"

namespace relay::python {

void check_status(relay_status_t status, const char* function) {
  if (status == RELAY_SUCCESS) return;
  const char* detail = relay_last_error();
  std::string message = std::string(function) + ": " + relay_status_string(status);
  if (detail != nullptr && *detail != '\0') message += ": " + std::string(detail);
  throw StatusError(status, message);
}

namespace {

// The MPI type of a buffer's elements from its struct-module format and item size. Integers go
// by size (a format's 'l' is 8 bytes natively, 4 with '=' or '<'); only native byte order.
bool element_type(const char* format, Py_ssize_t itemsize, MPI_Datatype* type, std::string* name) {
  std::string f = format != nullptr ? format : "B";
  if (!f.empty() && (f[0] == '@' || f[0] == '=' || f[0] == '<')) f.erase(0, 1);
  // Integers by signedness and size: one table row per (signed?, bytes).
  const bool is_signed = f.size() == 1 && std::strchr("bhilq", f[0]) != nullptr;
  const bool is_unsigned = f.size() == 1 && std::strchr("BHILQ", f[0]) != nullptr;
  if (is_signed || is_unsigned) {
    struct Sized {
      Py_ssize_t size;
      MPI_Datatype signed_type, unsigned_type;
      const char* bits;
    };
    const Sized ints[] = {{1, MPI_INT8_T, MPI_UINT8_T, "8"},
                          {2, MPI_INT16_T, MPI_UINT16_T, "16"},
                          {4, MPI_INT32_T, MPI_UINT32_T, "32"},
                          {8, MPI_INT64_T, MPI_UINT64_T, "64"}};
    for (const auto& i : ints) {
      if (i.size != itemsize) continue;
      *type = is_signed ? i.signed_type : i.unsigned_type;
      *name = std::string(is_signed ? "int" : "uint") + i.bits;
      return true;
    }
    return false;
  }
  struct Named {
    const char* format;
    Py_ssize_t size;
    MPI_Datatype type;
    const char* name;
  };
  const Named named[] = {
      {"?", 1, MPI_C_BOOL, "bool"},
      {"c", 1, MPI_CHAR, "char"},
      {"f", 4, MPI_FLOAT, "float32"},
      {"d", 8, MPI_DOUBLE, "float64"},
      {"Zf", 8, MPI_C_FLOAT_COMPLEX, "complex64"},
      {"Zd", 16, MPI_C_DOUBLE_COMPLEX, "complex128"},
  };
  for (const auto& n : named) {
    if (f == n.format && itemsize == n.size) {
      *type = n.type;
      *name = n.name;
      return true;
    }
  }
  return false;
}

}  // namespace

Buffer::Buffer(nb::handle obj, const char* argument, bool writable) {
  const int flags = PyBUF_FORMAT | PyBUF_STRIDES | (writable ? PyBUF_WRITABLE : 0);
  if (!PyObject_CheckBuffer(obj.ptr())) {
    throw StatusError(RELAY_ERR_BUFFER, std::string("argument ") + argument + ": a " +
                                            Py_TYPE(obj.ptr())->tp_name +
                                            " is not a buffer (use a numpy array)");
  }
  if (PyObject_GetBuffer(obj.ptr(), &view_, flags) != 0) {
    PyErr_Clear();
    // Ask again read-only to tell "read-only" from "not contiguous or not a plain array".
    Py_buffer probe{};
    const bool readable = PyObject_GetBuffer(obj.ptr(), &probe, PyBUF_FORMAT | PyBUF_STRIDES) == 0;
    if (readable) PyBuffer_Release(&probe);
    PyErr_Clear();
    throw StatusError(RELAY_ERR_BUFFER,
                      std::string("argument ") + argument +
                          (readable && writable ? ": read-only (relay writes into it)"
                                                : ": its buffer cannot be taken as an array"));
  }
  held_ = true;
  if (!PyBuffer_IsContiguous(&view_, 'A')) {
    throw StatusError(RELAY_ERR_BUFFER, std::string("argument ") + argument +
                                            ": not contiguous (relay needs one block of memory: "
                                            "numpy.ascontiguousarray makes one)");
  }
  if (!element_type(view_.format, view_.itemsize, &datatype_, &type_name_)) {
    throw StatusError(RELAY_ERR_DATATYPE,
                      std::string("argument ") + argument + ": elements of format '" +
                          (view_.format != nullptr ? view_.format : "B") + "' (" +
                          std::to_string(view_.itemsize) +
                          " bytes) have no MPI type; relay takes bool, int8-64, uint8-64, "
                          "float32, float64, complex64 and complex128 in native byte order");
  }
}

Buffer::Buffer(Buffer&& other) noexcept
    : view_(other.view_),
      held_(other.held_),
      datatype_(other.datatype_),
      type_name_(std::move(other.type_name_)) {
  other.held_ = false;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    if (held_) PyBuffer_Release(&view_);
    view_ = other.view_;
    held_ = other.held_;
    datatype_ = other.datatype_;
    type_name_ = std::move(other.type_name_);
    other.held_ = false;
  }
  return *this;
}

Buffer::~Buffer() {
  if (!held_) return;
  // Released where the GIL may not be held (a request completed in relay.Request.wait).
  nb::gil_scoped_acquire gil;
  PyBuffer_Release(&view_);
}

bool Buffer::fortran_contiguous() const { return held_ && PyBuffer_IsContiguous(&view_, 'F'); }

int Buffer::mpi_count(const char* argument) const {
  if (count() > INT32_MAX) {
    throw StatusError(RELAY_ERR_COUNT, std::string("argument ") + argument + ": " +
                                           std::to_string(count()) +
                                           " elements, more than an MPI count holds (2^31 - 1)");
  }
  return static_cast<int>(count());
}

namespace {

// mpi4py's C API functions PyMPIComm_Get and PyMPIOp_Get, found as mpi4py's own header does
// (the capsules in mpi4py.MPI.__pyx_capi__), so relay needs no mpi4py to build. Each caller
// keeps its own getter: MPI_Comm and MPI_Op are the same type (int) in MPICH.
template <class Handle>
Handle* mpi4py_handle(nb::handle obj, const char* function, const char* signature,
                      Handle* (*&getter)(PyObject*)) {
  using Getter = Handle* (*)(PyObject*);
  if (getter == nullptr) {
    nb::object capi = nb::module_::import_("mpi4py.MPI").attr("__pyx_capi__");
    nb::object capsule = capi[function];
    getter = reinterpret_cast<Getter>(PyCapsule_GetPointer(capsule.ptr(), signature));
    if (getter == nullptr) throw nb::python_error();
  }
  Handle* handle = getter(obj.ptr());
  if (handle == nullptr) throw nb::python_error();  // mpi4py's TypeError: not a Comm / Op
  return handle;
}

}  // namespace

MPI_Comm comm_handle(nb::handle comm) {
  static MPI_Comm* (*getter)(PyObject*) = nullptr;
  return *mpi4py_handle<MPI_Comm>(comm, "PyMPIComm_Get", "MPI_Comm *(PyObject *)", getter);
}

MPI_Op op_handle(nb::handle op) {
  static MPI_Op* (*getter)(PyObject*) = nullptr;
  return *mpi4py_handle<MPI_Op>(op, "PyMPIOp_Get", "MPI_Op *(PyObject *)", getter);
}

bool check_is_collective(relay_check_t check) {
  if (check == RELAY_CHECK_COLLECTIVE) return true;
  if (check != RELAY_CHECK_DEFAULT) return false;
  const char* env = std::getenv("RELAY_CHECK");
  return env != nullptr && std::strcmp(env, "collective") == 0;
}

void agree_on_arguments(MPI_Comm comm, bool collective, const StatusError* local) {
  if (!collective || comm == MPI_COMM_NULL) {
    if (local != nullptr) throw *local;
    return;
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // The lowest failed rank: every rank names the same one.
  int mine = local != nullptr ? rank : INT32_MAX;
  int first = INT32_MAX;
  const int rc = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (rc != MPI_SUCCESS)
    throw StatusError(RELAY_ERR_MPI, "argument agreement: MPI_Allreduce failed");
  if (local != nullptr) throw *local;
  if (first != INT32_MAX) {
    throw StatusError(RELAY_ERR_MISMATCH, "the arguments of rank " + std::to_string(first) +
                                              " were rejected (collective check): see its error");
  }
}

void agree_on_arguments(const std::vector<MPI_Comm>& comms, bool collective,
                        const StatusError* local) {
  if (comms.size() == 1) return agree_on_arguments(comms[0], collective, local);
  if (!collective) {
    if (local != nullptr) throw *local;
    return;
  }
  // A failure spreads over each communicator in turn: over a grid's row, then its column, it
  // reaches every rank.
  int failed = local != nullptr ? 1 : 0;
  for (MPI_Comm comm : comms) {
    int any = 0;
    if (MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
      throw StatusError(RELAY_ERR_MPI, "argument agreement: MPI_Allreduce failed");
    failed = any;
  }
  if (local != nullptr) throw *local;
  if (failed != 0) {
    throw StatusError(RELAY_ERR_MISMATCH,
                      "the arguments of another rank were rejected (collective check): see its "
                      "error");
  }
}

}  // namespace relay::python
