/* The reference header is a C header: a C program written against the musa* prototypes compiles
   with it (this file is part of musa_abi_test only to be compiled). */
#include "test/unit/musa_abi_reference.h"

int prof_musa_reference_compiles_as_c(void) { return (int)sizeof(struct musaDeviceProp); }
