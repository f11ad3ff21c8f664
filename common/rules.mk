# common/rules.mk - build rules shared by every exercise and solution folder.
# An exercise Makefile sets ROOT (the repository root) and includes this file. It builds
# ./<folder name> from main.c and the host library in common/ (build/libclu.a, built once for
# every folder, as the grader links it); kernel.cl is read at run time.
EXERCISE := $(notdir $(CURDIR))
CLU_DIR  := $(ROOT)/common
CLU_SRC  := $(wildcard $(CLU_DIR)/clu_*.c)
LIBCLU   := $(ROOT)/build/libclu.a
# students' code gets warnings but not -Werror; our own code is held to -Werror by `make test`
CFLAGS   ?= -std=c11 -O2 -g -Wall -Wextra
LDLIBS   := -lOpenCL -lm
ARGS     ?=

.PHONY: all run grade tune bench submit clean
all: $(EXERCISE)

$(EXERCISE): main.c $(LIBCLU) $(CLU_DIR)/clu.h | deps
	$(CC) $(CFLAGS) -I$(CLU_DIR) -o $@ main.c $(LIBCLU) $(LDLIBS)

# the workbook's host library, rebuilt by the top-level Makefile when a file of common/ changed
$(LIBCLU): $(CLU_SRC) $(wildcard $(CLU_DIR)/*.h)
	$(MAKE) --no-print-directory -C $(ROOT) libclu

run: $(EXERCISE)
	./$(EXERCISE) $(ARGS)

# grade this folder's main.c and kernel.cl (exercises/ or solutions/) with the pristine grader
grade:
	$(MAKE) --no-print-directory -C $(ROOT) grade EX=$(EXERCISE) SUBMISSION=$(abspath ..)

# search this folder's tuning values (07 on) for this folder's kernel.cl: in exercises/ yours, in
# solutions/ the reference's; the best goes to results/tuning/<device>.conf (make grade reads it)
tune:
	$(MAKE) --no-print-directory -C $(ROOT) tune EX=$(EXERCISE) SUBMISSION=$(abspath ..)

# make bench for this folder's exercise: this folder's kernel.cl (yours in exercises/) beside the
# reference's, at N=... (default 1024)
bench:
	$(MAKE) --no-print-directory -C $(ROOT) bench EX=$(EXERCISE) SUBMISSION=$(abspath ..)

# the archive of every exercise you changed (not only this one), written by the top Makefile
submit:
	@$(MAKE) --no-print-directory -C $(ROOT) submit SUBMISSION=$(abspath ..)

deps:
	@$(CLU_DIR)/deps.sh build

clean:
	rm -f $(EXERCISE)
