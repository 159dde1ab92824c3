/* The tree-sitter runtime, compiled from the `tree-sitter` package's own vendored sources (the
 * include path points there; see binding.gyp), so that its structures match the trees that
 * package's binding makes. */
#include "lib.c"
