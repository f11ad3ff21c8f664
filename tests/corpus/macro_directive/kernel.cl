/* a directive built by a macro, for the OpenCL compiler's own second preprocessing pass */
#define H #
H include "@WORKBOOK_ROOT@/solutions/04_local_B/kernel.cl"
