# Two commands on a fresh machine: `make run` serves Colony on its embedded defaults, `make test` runs
# the linters and every test tier that needs no cluster. Both install what they need first.
.PHONY: run test bench
run:
	bash scripts/dev.sh start
test:
	bash scripts/dev.sh test
bench:
	bash scripts/dev.sh bench
