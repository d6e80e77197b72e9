# ASan + UBSan for the whole build (used by .ci/run's second build of the test suite).
if(SCHEDSIM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
