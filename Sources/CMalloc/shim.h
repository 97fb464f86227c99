// The allocator's control that gives free pages back to the system, which neither the Glibc
// nor the Darwin module exports under one name.
#if defined(__linux__)
#include <malloc.h>
#elif defined(__APPLE__)
#include <malloc/malloc.h>
#endif

/// Returns the heap's free pages to the system: glibc's `malloc_trim`; on Apple platforms the
/// malloc zones' pressure relief. Elsewhere it does nothing.
static inline void cmalloc_release_free_pages(void) {
#if defined(__linux__)
  malloc_trim(0);
#elif defined(__APPLE__)
  malloc_zone_pressure_relief(0, 0);  // every zone, as much as it can
#endif
}
