// SimGrid SMPI: the destructors of statics a simulated rank constructs are not registered.
//
// A function-local static is constructed by the first rank that reaches it, and again by every
// other rank (each has its own copy of the program's data), and each construction registers its
// destructor in the C library's one exit list. With SMPI's mmap privatization the ranks' copies
// share one address, and the exit handlers ran the same destructor once per rank on whichever
// copy was mapped last: "double free or corruption" after every run of 2 or more ranks. The
// ranks' state ends with the process, so nothing is lost by not destroying it; statics built
// before the simulation starts (the process's own, once) are registered as usual.
// Linked with -Wl,--wrap=__cxa_atexit (src/CMakeLists.txt), in the SMPI build only.
#include <simgrid/actor.h>

extern "C" {
int __real___cxa_atexit(void (*destructor)(void*), void* object, void* dso_handle);

int __wrap___cxa_atexit(void (*destructor)(void*), void* object, void* dso_handle) {
  if (sg_actor_self() != nullptr) return 0;  // inside a simulated rank (or SimGrid's maestro)
  return __real___cxa_atexit(destructor, object, dso_handle);
}
}
