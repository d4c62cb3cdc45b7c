// The statistics line each provider process writes at exit for the benchmark
// (TAKOFORM_PROVIDER_STATS_FILE, scripts/bench.mjs): CPU time, peak RSS, calls per RPC.
//
// Peak RSS is the process's own: VmHWM from /proc/self/status where Linux has it, not
// getrusage's ru_maxrss. Why: on Linux ru_maxrss survives execve and takes in the high-water
// mark of the address space the process had *before* exec. Core (Go's os/exec) starts a
// provider with clone(CLONE_VM | CLONE_VFORK) and execve, so that address space is core's own,
// and every provider's "peak" was at least core's resident set at the moment of the launch —
// which holds the state of every resource and grows with N (~45–50 MB per 1000 resources at
// the apply walk of an update or destroy). VmHWM is the high-water mark of this process's
// address space only. Where /proc is absent (macOS) getrusage is the fallback; its raw value
// is kept beside as `rusageMaxRssKb` so that the two can be compared.
import { readFileSync } from 'node:fs';

export interface ProcessStatsLine {
  readonly pid: number;
  readonly cpuUserUs: number;
  readonly cpuSystemUs: number;
  /** This process's own peak resident set (kB). */
  readonly maxRssKb: number;
  /** getrusage's ru_maxrss (kB): on Linux, also what the launching process held before exec. */
  readonly rusageMaxRssKb: number;
  /** Milliseconds from process start to the handshake line. */
  readonly handshakeMs: number | undefined;
  /** CPU (user + system, µs) spent by then: what a launch costs before core can connect. */
  readonly handshakeCpuUs: number | undefined;
  /** Milliseconds from process start to the first RPC, and to the 'exit' event. */
  readonly firstRpcMs: number | undefined;
  readonly exitMs: number;
  readonly rpcs: Readonly<Record<string, number>>;
}

/** VmHWM (kB) from the text of /proc/<pid>/status (null: none), or undefined when it has none. */
export function vmHighWaterKb(procStatus: string | null): number | undefined {
  const m = procStatus === null ? null : /^VmHWM:\s+(\d+)\s+kB$/m.exec(procStatus);
  return m ? Number(m[1]) : undefined;
}

function ownProcStatus(): string | null {
  try {
    return readFileSync('/proc/self/status', 'utf8');
  } catch {
    return null; // no procfs: getrusage is all there is
  }
}

/** When the handshake line was written: time since process start, and CPU spent. */
export interface HandshakeMark {
  readonly ms: number;
  readonly cpuUs: number;
}

/** Taken right after the handshake line is written. */
export function markHandshake(): HandshakeMark {
  const cpu = process.cpuUsage();
  // ms since the process started (not `performance`: its getter loads perf_hooks)
  return { ms: Math.round(process.uptime() * 1000), cpuUs: cpu.user + cpu.system };
}

export function processStatsLine(
  handshake: HandshakeMark | undefined,
  rpcs: Readonly<Record<string, number>>,
  firstRpcMs?: number,
  usage: NodeJS.ResourceUsage = process.resourceUsage(),
  procStatus: string | null = ownProcStatus(),
): ProcessStatsLine {
  return {
    pid: process.pid,
    cpuUserUs: usage.userCPUTime,
    cpuSystemUs: usage.systemCPUTime,
    maxRssKb: vmHighWaterKb(procStatus) ?? usage.maxRSS,
    rusageMaxRssKb: usage.maxRSS,
    handshakeMs: handshake?.ms,
    handshakeCpuUs: handshake?.cpuUs,
    firstRpcMs,
    exitMs: Math.round(process.uptime() * 1000),
    rpcs,
  };
}
