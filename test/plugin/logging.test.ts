import { describe, expect, it } from 'vitest';
import { hclogTimestamp, levelFromEnv, Logger } from '../../src/plugin/logging.js';

describe('hclog lines (lessons G11, G12)', () => {
  it('writes JSON with a string @message and a 6-digit timestamp', () => {
    const lines: string[] = [];
    const log = new Logger('debug', (l) => lines.push(l));
    log.info('configured', { endpoint: 'http://127.0.0.1:1', count: 2 });
    log.trace('hidden');
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!);
    expect(entry['@level']).toBe('info');
    expect(typeof entry['@message']).toBe('string');
    expect(entry['@timestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(entry.count).toBe(2);
  });
  it('masks registered secrets in every line', () => {
    const lines: string[] = [];
    const log = new Logger('trace', (l) => lines.push(l));
    log.addSecret('s3cr3t-token');
    log.debug('request failed for s3cr3t-token', { header: 'Bearer s3cr3t-token' });
    expect(lines.join('')).not.toContain('s3cr3t-token');
    expect(lines.join('')).toContain('[redacted]');
  });
  it('reads the level from TF_LOG_PROVIDER / TF_LOG', () => {
    expect(levelFromEnv(undefined)).toBe('off');
    expect(levelFromEnv('DEBUG')).toBe('debug');
    expect(levelFromEnv('json')).toBe('trace');
    expect(hclogTimestamp(new Date('2026-11-30T01:02:03.456Z'))).toBe('2026-11-30T01:02:03.456000Z');
  });
});
