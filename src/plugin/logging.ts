// Provider logs in the format core understands: one hclog JSON object per stderr line, with a
// string "@message" (a non-string crashes Terraform itself, G12) and a 6-digit fractional
// "@timestamp" (3 digits demote the line to raw DEBUG, G11). The level follows
// TF_LOG_PROVIDER, else TF_LOG, so nothing is formatted when nobody will read it.
// Secrets: callers never pass credentials as fields; as a second line of defence every
// registered secret string is masked in every line before it is written.

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4 };
export type LogFields = Record<string, string | number | boolean | undefined>;

export class Logger {
  private readonly secrets = new Set<string>();
  constructor(
    private readonly threshold: LogLevel | 'off',
    private readonly write: (line: string) => void = (line) => process.stderr.write(line),
    private readonly module = 'provider.terraform-provider-takoform',
  ) {}

  static fromEnv(env: NodeJS.ProcessEnv = process.env): Logger {
    return new Logger(levelFromEnv(env.TF_LOG_PROVIDER ?? env.TF_LOG));
  }

  /** Never print this string: a token, once known, is masked in every later line. */
  addSecret(secret: string | undefined): void {
    if (secret && secret.length >= 4) this.secrets.add(secret);
  }

  enabled(level: LogLevel): boolean {
    return this.threshold !== 'off' && ORDER[level] >= ORDER[this.threshold];
  }

  log(level: LogLevel, message: string, fields: LogFields = {}): void {
    if (!this.enabled(level)) return;
    const entry: Record<string, string | number | boolean> = {
      '@level': level,
      '@message': String(message),
      '@module': this.module,
      '@timestamp': hclogTimestamp(new Date()),
    };
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) entry[k] = v;
    let line = JSON.stringify(entry);
    for (const s of this.secrets) line = line.split(s).join('[redacted]');
    this.write(line + '\n');
  }

  trace(message: string, fields?: LogFields): void {
    this.log('trace', message, fields);
  }
  debug(message: string, fields?: LogFields): void {
    this.log('debug', message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.log('info', message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.log('warn', message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.log('error', message, fields);
  }
}

export function levelFromEnv(value: string | undefined): LogLevel | 'off' {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '') return 'off';
  if (v === 'json') return 'trace';
  return v in ORDER ? (v as LogLevel) : 'trace';
}

/** Go layout 2006-01-02T15:04:05.000000Z07:00 (microseconds). */
export function hclogTimestamp(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
