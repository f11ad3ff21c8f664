# The workbook's top-level Makefile. Quick start: `make grade` (grade exercises/), `make test`.
#   make grade [EX=04_local_B] [SUBMISSION=dir] [CONFIG=file] [RESULTS=dir] [SEED=n]  grade one or every
#                                                 exercise of a submission folder (exit: 0 graded, 2 not)
#   make submit [ID=name] [SUBMISSION=dir]        RESULTS/ID.tar.gz (default submission.tar.gz): the
#                                                 exercises you changed, to upload or hand in
#   make test                                     the whole test suite (what CI runs)
#   make bench [N=1024] [SWEEP=1] [DEVICE=...] [BUDGET=s] [EX=id] [SUBMISSION=dir]  the lecture's
#                                                 GFLOP/s table, measured here (SUBMISSION: your
#                                                 kernels too, beside the reference's)
#   make tune EX=09 [DEVICE=...] [BUDGET=s] [SUBMISSION=dir]  search the tuning values (07 on) of
#                                                 your kernel (SUBMISSION=solutions: the
#                                                 reference's) on a device; the best goes to
#                                                 results/tuning/<device>.conf, which grade and
#                                                 bench read (TUNING=dir: another folder for them)
#   make batch SUBMISSIONS=dir|zip [OUT=dir] [JOBS=n] [EX=id] [FORCE=1] [CONFIG=file] [ROSTER=file]
#              [WORKSHEET=file] [GRADEBOOK=file] [PLATFORM=moodle|canvas] [PAST=dir] [SANDBOX=none]  grade a class
#   make gradescope [EX="00_vadd 04"] [CONFIG=file] [RESULTS=dir]  RESULTS/gradescope/autograder.zip,
#                                                 the autograder to upload to Gradescope
#   make gradescope-test SUBMISSION=dir|archive [RESULTS=dir]  that zip run on a sample upload as
#                                                 Gradescope would; prints the student's results.json
#   make batch ENGINE=slurm SUBMISSIONS=dir OUT=dir [PARTITION=p] [GRES=gpu:1] [STATUS=1] ...
#                                                 the same on a Slurm cluster, a job array (grader/batch/README.md)
#   make test-slurm                               make batch ENGINE=slurm on a Slurm started here
#   make test-speed                               the timed comparison beside two busy loops
#   make test-hints                               each README's "Common mistakes" gets its hint
#   make test-planted-slow                        the planted entries too slow for make test
#   make test-gradescope                          make gradescope's zip grading uploads in a fresh /autograder
#   make test-course                              make batch with a roster, LMS names, deadlines, regrades
#   make test-hostile                             make batch over the hostile class (tests/corpus/), killed and resumed
#   make handout [OUT=dir]                        the students' repository (default results/handout):
#                                                 no solutions/, nothing built on them; its make
#                                                 grade names the points the instructor's grading decides
#   make slides                                   the lecture decks as HTML in results/slides/
#   make all                                      build every exercise, solution and the grader
#   make asan                                     the grader and unit tests with ASan+UBSan, in build/asan/
#   make unit                                     the fast unit tests (cmocka)
#   make format-check                             what clang-format would change (make format: change it)
ROOT       := $(CURDIR)
BUILD      := $(ROOT)/build
CC         ?= cc
STRICT     := -std=c11 -O2 -g -Wall -Wextra -Werror
CLU_SRC    := $(wildcard common/clu_*.c)
CLU_OBJ    := $(patsubst common/%.c,$(BUILD)/common/%.o,$(CLU_SRC))
LIBCLU     := $(BUILD)/libclu.a
# the grader's OpenCL layer: a module of its own (LD_AUDIT) that host programs load, no part of
# the grader's binary
LAYER_SRC  := $(wildcard grader/child/launch_layer*.c)
LAYER      := $(BUILD)/grader/launch_layer.so
GRADER_SRC := $(filter-out $(LAYER_SRC),$(wildcard grader/*.c grader/exercise/*.c grader/jail/*.c \
                grader/child/*.c grader/grade/*.c grader/tune/*.c grader/text/*.c \
                grader/oclgrind/*.c grader/bench/*.c))
GRADER_LIB := $(BUILD)/libgrader.a
GRADER_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out grader/main.c,$(GRADER_SRC)))
GRADER     := $(BUILD)/grader/grader
# the grader's oclgrind plugin, beside it (grader/oclgrind/tiles.cpp says why it is C++)
TILES      := $(BUILD)/grader/oclgrind-tiles.so
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
DEPFLAGS   := -MMD -MP
# make batch's, Slurm's and Gradescope's one intake of students' uploads (a program of its own:
# libarchive, no OpenCL); its library (every object but main's) links the unit tests too
INTAKE_SRC := $(filter-out grader/intake/intake_main.c,$(wildcard grader/intake/*.c))
INTAKE_LIB := $(BUILD)/libintake.a
INTAKE     := $(BUILD)/grader/intake
SUBMISSION ?= $(ROOT)/exercises
RESULTS    ?= $(ROOT)/results
EX         ?=
# the skeletons that make test holds to clang-format: tests/run.sh passes its export of exercises/
# as committed, since a student's exercises/ holds their own work
SKELETONS  ?= exercises

.PHONY: all grader libclu asan unit unit-build grade submit bench tune batch handout gradescope gradescope-test slides test test-course test-hostile test-gradescope test-slurm test-speed test-hints test-planted-slow deps-build deps-grade deps-bench deps-batch deps-gradescope deps-slides deps-test deps-slurm programs format format-check clean
all: $(LIBCLU) $(GRADER) $(TILES) $(LAYER) $(INTAKE) programs
grader: $(GRADER) $(TILES)
libclu: $(LIBCLU)

deps-build deps-grade deps-bench deps-batch deps-gradescope deps-slides deps-test deps-slurm: deps-%:
	@sh common/deps.sh $*

$(BUILD)/common/%.o: common/%.c | deps-build
	@mkdir -p $(dir $@)
	$(CC) $(STRICT) $(DEPFLAGS) -Icommon -c -o $@ $<

$(LIBCLU): $(CLU_OBJ)
	rm -f $@ && ar rcs $@ $^

# the grader's objects; its library (every object but main's) links the grader and the unit tests
$(BUILD)/grader/%.o: grader/%.c | deps-build
	@mkdir -p $(dir $@)
	$(CC) $(STRICT) $(DEPFLAGS) -Icommon -Igrader -c -o $@ $<

$(GRADER_LIB): $(GRADER_OBJ)
	rm -f $@ && ar rcs $@ $^

$(GRADER): $(BUILD)/grader/main.o $(GRADER_LIB) $(LIBCLU) | $(LAYER)
	$(CC) -o $@ $^ -lOpenCL -lcrypt -lm

# -fno-rtti: Debian's liboclgrind is built without RTTI (as LLVM is), so a plugin with it wants
# the typeinfo of oclgrind::Plugin, which the library lacks, and oclgrind cannot load it
$(BUILD)/%/oclgrind-tiles.so: grader/oclgrind/tiles.cpp | deps-grade
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -Wall -Wextra -Werror -fno-rtti -fPIC -shared -o $@ $< -loclgrind

# only the loader's audit interface is exported; libc is its only library
$(LAYER): $(LAYER_SRC) | deps-build
	@mkdir -p $(dir $@)
	$(CC) $(STRICT) $(DEPFLAGS) -fPIC -shared -fvisibility=hidden -Icommon -Igrader -o $@ $(LAYER_SRC)

# make unit: the fast tests (cmocka), each a program linked with the grader's library
$(BUILD)/tests/%: tests/unit/%.c $(GRADER_LIB) $(INTAKE_LIB) $(LIBCLU) | deps-test
	@mkdir -p $(dir $@)
	$(CC) $(STRICT) $(DEPFLAGS) -Icommon -Igrader -o $@ $< $(GRADER_LIB) $(INTAKE_LIB) $(LIBCLU) \
	    -lcmocka -lOpenCL -larchive -lcrypt -lm

unit: unit-build
	@status=0; for t in $(UNIT_TESTS); do $$t || status=1; done; exit $$status

# the unit tests built, not run (make test runs them once, under ASan and UBSan)
unit-build: $(UNIT_TESTS) $(INTAKE)

# (objects in build/intake/: build/grader/intake is the program)
$(BUILD)/intake/%.o: grader/intake/%.c | deps-batch
	@mkdir -p $(dir $@)
	$(CC) $(STRICT) $(DEPFLAGS) -Igrader/intake -c -o $@ $<

$(INTAKE_LIB): $(patsubst grader/intake/%.c,$(BUILD)/intake/%.o,$(INTAKE_SRC))
	rm -f $@ && ar rcs $@ $^

$(INTAKE): $(BUILD)/intake/intake_main.o $(INTAKE_LIB)
	$(CC) -o $@ $^ -larchive

# The grader and the unit tests once more with AddressSanitizer and UBSan (tests/run.sh runs them
# and the planted submissions with it). Objects are compiled once and shared by every test.
# -Wno-format-truncation: with -fsanitize=undefined GCC 12 sees a NULL format in
# vsnprintf(NULL, 0, fmt, ap) that no path passes (the plain build has the warning on).
ASAN       := $(BUILD)/asan
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer
ASAN_WARN  := -Wno-format-truncation
ASAN_OBJ   := $(patsubst %.c,$(ASAN)/%.o,$(GRADER_SRC) $(CLU_SRC) tests/unit/asan_defaults.c)
ASAN_INTAKE := $(patsubst %.c,$(ASAN)/%.o,$(INTAKE_SRC))
ASAN_TESTS := $(patsubst tests/unit/%.c,$(ASAN)/unit/%,$(wildcard tests/unit/test_*.c))
asan: $(ASAN)/grader/grader $(ASAN)/grader/oclgrind-tiles.so $(ASAN_TESTS)

$(ASAN)/%.o: %.c | deps-build
	@mkdir -p $(dir $@)
	$(CC) $(STRICT) $(DEPFLAGS) $(ASAN_WARN) $(ASAN_FLAGS) -Icommon -Igrader -c -o $@ $<

$(ASAN)/grader/grader: $(ASAN_OBJ)
	$(CC) $(ASAN_FLAGS) -o $@ $^ -lOpenCL -lcrypt -lm

$(ASAN)/unit/%: tests/unit/%.c tests/unit/testkit.h $(filter-out $(ASAN)/grader/main.o,$(ASAN_OBJ)) \
                $(ASAN_INTAKE)
	@mkdir -p $(dir $@)
	$(CC) $(STRICT) $(DEPFLAGS) $(ASAN_WARN) $(ASAN_FLAGS) -Icommon -Igrader -o $@ $< $(filter %.o,$^) \
	    -lcmocka -lOpenCL -larchive -lcrypt -lm

# every exercise and solution host program, held to -Werror like the rest of our code
# (exercises/ is the student's: built with its folders' own flags, warnings but no -Werror;
# tests/run.sh builds the committed skeletons with -Werror)
programs: $(LIBCLU) | deps-build
	@for d in $(wildcard solutions/*/); do $(MAKE) --no-print-directory -s -C $$d CFLAGS="$(STRICT)" || exit 1; done
	@for d in exercises/*/; do $(MAKE) --no-print-directory -s -C $$d || exit 1; done

# make grade exits 0 when the grader gave a grade, full marks or not (the score is its last line
# and in RESULTS/grade.json), and 2 when it gave none: it could not grade, or the machine was too
# busy (the grader's 2 and 3; no RESULTS/grade.json then, not even an old one). Make turns any
# failed recipe into its own 2, so the grader's 1 (points lost) would read as "could not grade";
# build/grader/grader itself exits 0, 1, 2 or 3. RESULTS (default results/) gets the logs too.
# The grader's own build (its compiler lines, some 60 the first time) goes to $(BUILD)/build.log,
# shown only when it fails: what a student acts on is the report. SEED repeats a run (its header
# says which seed it drew).
QUIET_BUILD = mkdir -p $(BUILD) && { $(MAKE) --no-print-directory $(1) >$(BUILD)/build.log 2>&1 || \
    { cat $(BUILD)/build.log; echo "make: the grader did not build (its output above, kept in $(BUILD)/build.log)" >&2; exit 2; }; }
grade: deps-grade
	@$(call QUIET_BUILD,$(GRADER) $(TILES)); rm -f $(RESULTS)/grade.json; \
	$(GRADER) --root $(ROOT) --submission $(SUBMISSION) $(if $(EX),--ex $(EX)) $(if $(CONFIG),--config $(CONFIG)) \
	    $(if $(SEED),--seed $(SEED)) $(if $(TUNING),--tuning $(TUNING)) --results $(RESULTS) --json $(RESULTS)/grade.json; \
	status=$$?; [ $$status -le 1 ] || { echo "make grade: no grade given (the grader exited $$status)" >&2; exit 2; }

# the student's hand-in: the exercise folders changed from the skeleton (git's, or PRISTINE=dir)
submit:
	@SUBMISSION="$(SUBMISSION)" RESULTS="$(RESULTS)" ID="$(ID)" PRISTINE="$(PRISTINE)" sh grader/batch/submit.sh

bench: deps-bench
	@$(call QUIET_BUILD,$(GRADER)); $(GRADER) --bench --root $(ROOT) $(if $(N),--n $(N)) $(if $(filter 1,$(SWEEP)),--sweep) \
	    $(if $(BUDGET),--budget $(BUDGET)) $(if $(TUNING),--tuning $(TUNING)) $(if $(EX),--ex $(EX)) \
	    $(if $(filter-out file undefined,$(origin SUBMISSION)),--submission $(SUBMISSION)) --out results

# make tune tunes the kernel make grade grades (exercises/, the student's) unless SUBMISSION says
# another folder (solutions: the reference's values)
tune: deps-grade
	@$(call QUIET_BUILD,$(GRADER)); $(GRADER) --tune --root $(ROOT) --ex "$(EX)" $(if $(BUDGET),--budget $(BUDGET)) \
	    $(if $(TUNING),--tuning $(TUNING)) --submission $(SUBMISSION)

# ENGINE=slurm: grader/batch/slurm.sh (a job array) instead of batch.sh (this machine)
batch: deps-batch $(GRADER) $(TILES) $(INTAKE) $(LIBCLU)
	@SUBMISSIONS="$(SUBMISSIONS)" OUT="$(OUT)" JOBS="$(JOBS)" EX="$(EX)" FORCE="$(FORCE)" CONFIG="$(CONFIG)" \
	    TUNING="$(TUNING)" PARTITION="$(PARTITION)" GRES="$(GRES)" STATUS="$(STATUS)" ONE_NODE="$(ONE_NODE)" \
	    SANDBOX="$(SANDBOX)" ONLY="$(ONLY)" ROSTER="$(ROSTER)" ASSIGNMENT="$(ASSIGNMENT)" WORKSHEET="$(WORKSHEET)" GRADEBOOK="$(GRADEBOOK)" PLATFORM="$(PLATFORM)" PAST="$(PAST)" \
	    sh grader/batch/$(if $(filter slurm,$(ENGINE)),slurm,batch).sh

# the students' repository: this workbook's committed tree without the reference solutions and
# what is built on them, a git repository of one commit (grader/batch/handout.sh)
handout:
	@OUT="$(OUT)" sh grader/batch/handout.sh

# the autograder zip for Gradescope: this workbook, setup.sh, run_autograder, EX, CONFIG, a secret
gradescope: deps-gradescope $(GRADER) $(TILES)
	@EX="$(EX)" CONFIG="$(CONFIG)" RESULTS="$(RESULTS)" sh grader/batch/gradescope-bundle.sh

# the instructor's zip (RESULTS/gradescope/autograder.zip, or ZIP=) on a sample upload, as Gradescope
# runs it; only a SUBMISSION from the command line or the environment (not make grade's default)
gradescope-test: deps-gradescope
	@SUBMISSION="$(if $(filter file,$(origin SUBMISSION)),,$(SUBMISSION))" RESULTS="$(RESULTS)" ZIP="$(ZIP)" \
	    sh grader/batch/gradescope-test.sh

# tables from this machine's latest `make bench` (results/) and the committed reference results
slides: deps-slides $(GRADER)
	@sh slides/render.sh results results/slides

# (everything built on every core once deps-test has installed what the build needs: the deps-*
# prerequisites then find nothing missing, so no two apt-get runs meet; a handout's suite runs
# the plain build's unit tests, without ASan's)
test: deps-test
	@$(MAKE) --no-print-directory -j$$(nproc 2>/dev/null || echo 2) all $(if $(wildcard solutions),asan) unit-build
	@STRICT="$(STRICT)" sh tests/run.sh

# the timed comparison beside outside load: a copy of 01's solution graded five times beside two
# busy loops, every ratio within [0.8, 1.25], and a slow capstone that a busy machine must not
# hand the vendor points (about a minute and a half; CI runs it)
test-speed: deps-test all
	@sh tests/speed_load.sh
# every "Common mistakes" bullet of the exercises' READMEs as a planted submission with the hint
# it must get (tests/hints/, graded with --no-perf and --no-memcheck unless an entry needs them)
test-hints: deps-test all
	@PLANTED_DIR=tests/hints sh tests/planted.sh
# the planted entries marked `slow` (large tiles under oclgrind, half a minute to a minute each
# beside load; a slow capstone timed against OpenBLAS),
# left out of make test's planted set to keep it under 15 minutes (CI runs them)
test-planted-slow: deps-test all
	@PLANTED_PART=slow sh tests/planted.sh
# the hostile class: 74 uploads of tests/corpus/ (fork bombs, escapes, forged results, bombs in
# archives, ...) graded by make batch beside a busy loop, killed half-way and resumed, every good
# neighbour at full marks (tests/corpus.sh, 9 to 12 minutes on 2 cores: CI runs it after make test)
test-hostile: deps-test all
	@sh tests/corpus.sh
# make gradescope's zip unpacked into a fresh /autograder (a bubblewrap sandbox) and run on the
# solution, a planted bug, an empty upload, a .zip and a host program after the secret
# (tests/gradescope.sh, about a minute and a quarter; CI runs it, and again on a fresh Debian root)
test-gradescope: deps-test deps-gradescope all
	@sh tests/gradescope.sh
# make batch as a course uses it: roster, Moodle and Canvas names, late work, imports, similarity,
# stale results, ONLY=, a killed FORCE=1 (tests/course.sh, about a minute and a half)
test-course: deps-test all
	@sh tests/course.sh

# make batch ENGINE=slurm on a one-node Slurm this test starts and stops (slurm-wlm, munge)
test-slurm: deps-batch deps-slurm all
	@sh tests/slurm.sh

# every C and CUDA file we format; format-check is what make test runs
# (wildcard: a handout has no solutions/ and none of the planted or hostile entries)
FORMATTED = $(wildcard common/*.[ch] grader/*.[ch] grader/*/*.[ch] grader/*/*.cpp $(SKELETONS)/*/*.c \
            $(SKELETONS)/*/*.cu solutions/*/*.c solutions/*/*.cu tests/unit/*.c tests/planted/*/main.c \
            tests/corpus/*/*.c)
format: deps-test
	clang-format --style=file:$(ROOT)/.clang-format -i $(FORMATTED)

format-check: deps-test
	clang-format --style=file:$(ROOT)/.clang-format --dry-run --Werror $(FORMATTED)

clean:
	rm -rf $(BUILD) results
	@for d in $(wildcard exercises/*/ solutions/*/); do $(MAKE) --no-print-directory -s -C $$d clean; done

-include $(shell find $(BUILD) -name "*.d" 2>/dev/null)
