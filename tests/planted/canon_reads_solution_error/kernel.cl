/* The reference by its absolute path (spelt with a digraph), with a tile size that trips its own
 * #error, whose message the refusal quoted. */
#define TSM 100
%:include "@WORKBOOK_ROOT@/solutions/09_register_blocking/kernel.cl"
