# ctvm - top-level build. `make` builds the compiler, `make test` runs every
# test, `make demo` runs the main job on the bundled model, `make deps`
# installs missing Debian packages (as root), `make conformance` runs the ONNX
# backend suites (docs/CONFORMANCE.md), `make bench` compares ctvm with
# ONNX Runtime, PyTorch and TVM (bench/run.sh; BENCH_ARGS=--quick for a smoke run).

CC      ?= gcc
CFLAGS  ?= -O2 -g
LDFLAGS ?=
# CFLAGS and LDFLAGS are the caller's (make san / make fuzz set sanitizers
# there); what every object needs comes on top
ALL_CFLAGS = $(CFLAGS) -std=c11 -Wall -Wextra -D_GNU_SOURCE -I. -I$(B)/gen
LDLIBS  := -lprotobuf-c -ljansson -lzip -lopenblas -lm
B       := build

ONNX_PROTO := /usr/include/onnx/onnx.proto
GEN_C      := $(B)/gen/onnx/onnx.pb-c.c
GEN_H      := $(B)/gen/onnx/onnx.pb-c.h
EMBED_C    := $(B)/gen/embedded.c

LIB_SRC := $(wildcard ir/*.c frontend/*.c ops/*.c passes/*.c schedule/*.c lower/*.c emit_c/*.c tune/*.c)
LIB_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC)) $(B)/obj/gen/onnx.pb-c.o $(B)/obj/gen/embedded.o
LIB     := $(B)/libctvm.a
EMBEDDED := $(sort $(wildcard runtime_min/*.h runtime_min/*.c templates/*.h templates/*.c))

TEST_SRC := $(wildcard tests/unit/test_*.c)
TEST_BIN := $(patsubst tests/unit/%.c,$(B)/tests/%,$(TEST_SRC))
# the fuzz targets (fuzz/): built with libFuzzer by `make fuzz`, and with
# fuzz/replay_main.c into every build so their regression inputs replay in `make test`
FUZZ_SRC := $(wildcard fuzz/fuzz_*.c)
REPLAY_BIN := $(patsubst fuzz/%.c,$(B)/fuzz/replay_%,$(FUZZ_SRC))
FUZZ_SECONDS ?= 60
FB := build-fuzz
SAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined

.PHONY: all test unit e2e demo deps bench clean conformance conformance-ci zoo zoo-ci fuzz fuzz-build fuzz-lib san san-build readability
all: $(B)/ctvm-emit $(B)/ctvm-run $(B)/ctvm-tune $(TEST_BIN) $(REPLAY_BIN)

deps:
	@bash tools/deps.sh

$(GEN_C) $(GEN_H): $(ONNX_PROTO)
	@mkdir -p $(B)/gen/onnx
	protoc-c --c_out=$(B)/gen -I/usr/include onnx/onnx.proto

$(B)/embed: tools/embed.c
	@mkdir -p $(B)
	$(CC) -O1 -Wall -Wextra -o $@ $<

$(EMBED_C): $(B)/embed $(EMBEDDED)
	@mkdir -p $(B)/gen
	$(B)/embed $(EMBEDDED) > $@

$(B)/obj/gen/onnx.pb-c.o: $(GEN_C)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -w -c -o $@ $<

$(B)/obj/gen/embedded.o: $(EMBED_C)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/obj/%.o: %.c $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(LIB): $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(B)/ctvm-%: cli/ctvm_%.c cli/driver.c cli/driver.h $(LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< cli/driver.c $(LIB) $(LDLIBS)

$(B)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(LIB)
	@mkdir -p $(B)/tests
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS) -lcmocka

$(B)/fuzz/replay_%: fuzz/%.c fuzz/fuzz_util.h fuzz/replay_main.c $(LIB)
	@mkdir -p $(B)/fuzz
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< fuzz/replay_main.c $(LIB) $(LDLIBS)

# libFuzzer targets (clang): the library built with ASan+UBSan and coverage
# into $(FB), each target linked with -fsanitize=fuzzer
$(FB)/fuzz/%: fuzz/%.c fuzz/fuzz_util.h fuzz-lib
	@mkdir -p $(FB)/fuzz
	clang $(SAN_FLAGS) -fsanitize=fuzzer -std=c11 -D_GNU_SOURCE -I. -I$(FB)/gen -o $@ $< $(FB)/libctvm.a $(LDLIBS)

fuzz-lib:
	@$(MAKE) --no-print-directory B=$(FB) CC=clang CFLAGS='$(SAN_FLAGS) -fsanitize=fuzzer-no-link' $(FB)/libctvm.a

fuzz-build: $(patsubst fuzz/%.c,$(FB)/fuzz/%,$(FUZZ_SRC))

# every fuzz target for FUZZ_SECONDS on its corpus (fuzz/run.sh)
fuzz: fuzz-build
	@bash fuzz/run.sh $(FUZZ_SECONDS)

# the compiler, its unit tests and the replay binaries under ASan+UBSan in
# build-san/, then tests/san.sh (unit tests, e2e small models, a conformance sample)
san: san-build
	@bash tests/san.sh

san-build:
	@$(MAKE) --no-print-directory B=build-san CFLAGS='$(SAN_FLAGS)' LDFLAGS='-fsanitize=address,undefined' all

unit: $(TEST_BIN)
	@bash tests/run_unit.sh $(TEST_BIN)

e2e: $(B)/ctvm-emit $(B)/ctvm-run
	@bash tests/e2e.sh

test: all
	@bash tests/run_all.sh

# ONNX backend conformance (docs/CONFORMANCE.md): every suite, -j2, threshold 97%;
# CONF_ARGS adds runner options (e.g. --suite debian-node --filter 'test_conv' --write-doc).
conformance: $(B)/ctvm-run
	@/usr/bin/python3 tests/conformance/conformance.py -j2 $(CONF_ARGS)

# The fast variant run by `make test`: the two node suites, native target, -O1.
conformance-ci: $(B)/ctvm-run
	@bash tests/conformance/ci.sh

# Extent-1 loops, guards the loop bounds decide, (void) lines and b<id> names in
# the generated C of the golden, seed and zoo CI models: all must be 0
# (READABILITY_ARGS=--report only prints the table).
readability: $(B)/ctvm-emit
	@/usr/bin/python3 tools/readability_count.py --emit $(B)/ctvm-emit $(READABILITY_ARGS)

demo: $(B)/ctvm-emit $(B)/ctvm-run
	@bash golden/demo.sh

bench: $(B)/ctvm-emit
	@bash bench/run.sh $(BENCH_ARGS)

# The model zoo (zoo/README.md): every model vs ONNX Runtime, timed; writes docs/ZOO.md.
zoo: $(B)/ctvm-emit
	@bash zoo/zoo.sh $(ZOO_ARGS)

zoo-ci: $(B)/ctvm-emit
	@bash zoo/zoo.sh --ci $(ZOO_ARGS)

clean:
	rm -rf $(B)

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
