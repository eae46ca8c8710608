/* A stand-in for newer CANN's libascendcl.so, whose aclrt* functions live in libacl_rt.so: this
   library defines no acl* function itself; a program that links -lascendcl gets them all from
   libacl_rt.so (here the simulated ACL runtime under that name), through this library's
   dependency. prof must find every real function by name, in whichever library exports it. */
int prof_ascendcl_shim_marker(void) { return 1; }
