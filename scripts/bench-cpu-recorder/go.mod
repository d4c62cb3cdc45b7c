module local/bench-cpu-recorder

go 1.22
