# Two commands on a fresh machine: `make run` serves Colony on its embedded defaults, `make test` runs
# the linters and every test tier: unit, integration (real PostgreSQL, Redis and the local control
# plane, which it starts) and e2e in that cluster. Both install what they need first.
# `npm run test:unit` alone needs nothing running.
.PHONY: run test bench
run:
	bash scripts/dev.sh start
test:
	bash scripts/dev.sh test
bench:
	bash scripts/dev.sh bench
