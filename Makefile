# ctvm - top-level build. `make` builds the compiler, `make test` runs every
# test, `make demo` runs the main job on the bundled model, `make deps`
# installs missing Debian packages (as root), `make conformance` runs the ONNX
# backend suites (docs/CONFORMANCE.md), `make bench` compares ctvm with
# ONNX Runtime, PyTorch and TVM (bench/run.sh; BENCH_ARGS=--quick for a smoke run).

CC      ?= gcc
CFLAGS  ?= -O2 -g
# kept when CFLAGS is given on the command line (e.g. a sanitizer build:
# make B=build-san CC=clang CFLAGS='-O1 -g -fsanitize=address,undefined' LDFLAGS=-fsanitize=address,undefined)
override CFLAGS += -std=c11 -Wall -Wextra -D_GNU_SOURCE -I. -I$(B)/gen
LDFLAGS ?=
LDLIBS  := -lprotobuf-c -ljansson -lzip -lopenblas -lm
B       := build

ONNX_PROTO := /usr/include/onnx/onnx.proto
GEN_C      := $(B)/gen/onnx/onnx.pb-c.c
GEN_H      := $(B)/gen/onnx/onnx.pb-c.h
EMBED_C    := $(B)/gen/embedded.c

LIB_SRC := $(wildcard ir/*.c frontend/*.c ops/*.c passes/*.c schedule/*.c emit_c/*.c tune/*.c)
LIB_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC)) $(B)/obj/gen/onnx.pb-c.o $(B)/obj/gen/embedded.o
LIB     := $(B)/libctvm.a
EMBEDDED := $(sort $(wildcard runtime_min/*.h runtime_min/*.c templates/*.h templates/*.c))

TEST_SRC := $(wildcard tests/unit/test_*.c)
TEST_BIN := $(patsubst tests/unit/%.c,$(B)/tests/%,$(TEST_SRC))

.PHONY: all test unit e2e demo deps bench clean conformance conformance-ci zoo zoo-ci
all: $(B)/ctvm-emit $(B)/ctvm-run $(B)/ctvm-tune $(TEST_BIN)

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
	$(CC) $(CFLAGS) -w -c -o $@ $<

$(B)/obj/gen/embedded.o: $(EMBED_C)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/obj/%.o: %.c $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(LIB): $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(B)/ctvm-%: cli/ctvm_%.c cli/driver.c cli/driver.h $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< cli/driver.c $(LIB) $(LDLIBS)

$(B)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(LIB)
	@mkdir -p $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS) -lcmocka

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
