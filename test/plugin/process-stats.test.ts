import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processStatsLine, vmHighWaterKb } from '../../src/plugin/process-stats.js';

const STATUS = 'Name:\tnode\nVmPeak:\t 1123456 kB\nVmHWM:\t   61440 kB\nVmRSS:\t   52100 kB\n';
const usage = (maxRSS: number) => ({ ...process.resourceUsage(), userCPUTime: 10, systemCPUTime: 2, maxRSS });

describe('the benchmark stats line of a provider process', () => {
  it('reads VmHWM from /proc/<pid>/status', () => {
    expect(vmHighWaterKb(STATUS)).toBe(61440);
    expect(vmHighWaterKb('Name:\tnode\n')).toBeUndefined();
    expect(vmHighWaterKb(null)).toBeUndefined();
  });

  it("reports the process's own peak, not getrusage's, which includes core's before exec", () => {
    // getrusage says 240 MB (core's resident set when it launched us); VmHWM says 60 MB.
    const line = processStatsLine({ ms: 5, cpuUs: 4000 }, { ApplyResourceChange: 3 }, 7, usage(245760), STATUS);
    expect(line.maxRssKb).toBe(61440);
    expect(line.rusageMaxRssKb).toBe(245760);
    expect(line).toMatchObject({ cpuUserUs: 10, cpuSystemUs: 2, handshakeMs: 5, handshakeCpuUs: 4000, firstRpcMs: 7, rpcs: { ApplyResourceChange: 3 } });
    expect(line.exitMs).toBeGreaterThan(0);
  });

  it('falls back to getrusage where there is no procfs', () => {
    expect(processStatsLine(undefined, {}, undefined, usage(50000), null).maxRssKb).toBe(50000);
  });

  // The mechanism itself, on a real process: a parent holding more memory than its child
  // ever touches launches it; the child's ru_maxrss carries the parent's resident set across
  // exec, its VmHWM does not. Core launching a provider is this, with core as the parent.
  it.runIf(process.platform === 'linux')('a launched process inherits the launcher’s ru_maxrss, not its VmHWM', () => {
    const held = Buffer.alloc(192 << 20, 1); // touched: resident in this process
    const child = JSON.parse(
      execFileSync(
        process.execPath,
        ['-e', 'console.log(JSON.stringify({ maxRSS: process.resourceUsage().maxRSS, status: require("fs").readFileSync("/proc/self/status", "utf8") }))'],
        {
          encoding: 'utf8',
        },
      ),
    ) as { maxRSS: number; status: string };
    expect(held[held.length - 1]).toBe(1);
    const line = processStatsLine(undefined, {}, undefined, usage(child.maxRSS), child.status);
    expect(line.rusageMaxRssKb).toBeGreaterThan(192 * 1024);
    expect(line.maxRssKb).toBe(vmHighWaterKb(child.status));
    expect(line.maxRssKb).toBeLessThan(line.rusageMaxRssKb - 64 * 1024);
  });
});
