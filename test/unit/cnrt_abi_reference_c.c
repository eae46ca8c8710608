/* The reference header is a C header: a C program written against cnrt.h's prototypes compiles
   with it (this file is part of cnrt_abi_test only to be compiled). */
#include "test/unit/cnrt_abi_reference.h"

int prof_cnrt_reference_compiles_as_c(void) { return (int)sizeof(cnrtDeviceProp_t); }
