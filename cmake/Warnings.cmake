# One INTERFACE target carrying the project's warning set; every schedsim target links it.
add_library(schedsim_warnings INTERFACE)
target_compile_options(schedsim_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wimplicit-fallthrough -Wconversion -Wsign-conversion)
