// A transparent launcher for the benchmark's external Go provider (scripts/bench.mjs): it runs
// the provider named by BENCH_WRAPPED_PROVIDER as its child with the same stdio, arguments and
// environment, forwards signals, and at exit appends one JSON line with the child's CPU time
// and peak RSS (and its own CPU, which the benchmark subtracts from core's) to
// TAKOFORM_PROVIDER_STATS_FILE — the line our provider writes about itself, so every variant is
// measured the same way. Why a launcher: a provider launched by core is a grandchild of the
// benchmark, whose CPU is otherwise only visible summed into core's.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

func main() {
	real := os.Getenv("BENCH_WRAPPED_PROVIDER")
	if real == "" {
		fmt.Fprintln(os.Stderr, "bench-cpu-recorder: BENCH_WRAPPED_PROVIDER is not set")
		os.Exit(1)
	}
	cmd := exec.Command(real, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-cpu-recorder:", err)
		os.Exit(1)
	}
	go func() {
		for s := range signals {
			_ = cmd.Process.Signal(s)
		}
	}()
	_ = cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if file := os.Getenv("TAKOFORM_PROVIDER_STATS_FILE"); file != "" {
		child, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		var self syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
		us := func(t syscall.Timeval) int64 { return t.Sec*1e6 + int64(t.Usec) }
		line := map[string]any{"pid": cmd.Process.Pid}
		if child != nil {
			line["cpuUserUs"], line["cpuSystemUs"], line["maxRssKb"] = us(child.Utime), us(child.Stime), child.Maxrss
		}
		line["launcherCpuUs"] = us(self.Utime) + us(self.Stime)
		if b, err := json.Marshal(line); err == nil {
			if f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				_, _ = f.Write(append(b, '\n'))
				_ = f.Close()
			}
		}
	}
	if code < 0 {
		code = 1
	}
	os.Exit(code)
}
