// Terraform numbers are arbitrary-precision decimals (cty uses 512-bit big floats). A JS
// `number` cannot hold 12345678901234567891 or 0.1-typed-as-decimal exactly, and core
// compares planned numbers with configured ones by their shortest decimal text, so an
// approximation makes plans fail ("planned value does not match config value"). TfNumber
// keeps the value exactly as it arrived (a double, a 64-bit bigint, or decimal text) and
// hands it back unchanged.

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

export class TfNumber {
  private constructor(private readonly repr: number | bigint | string) {}

  static of(value: number | bigint): TfNumber {
    if (typeof value === 'number' && !Number.isFinite(value) && !Number.isNaN(value)) return new TfNumber(value);
    if (typeof value === 'number' && Number.isNaN(value)) throw new RangeError('NaN is not a Terraform number');
    return new TfNumber(
      typeof value === 'bigint' && value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value,
    );
  }

  /** A decimal string as core sends it for numbers that are not exact doubles. */
  static fromDecimal(text: string): TfNumber {
    if (!DECIMAL.test(text)) throw new RangeError(`${JSON.stringify(text)} is not a decimal number`);
    return new TfNumber(text);
  }

  /** The raw representation for encoders: a double, a bigint or decimal text. */
  get raw(): number | bigint | string {
    return this.repr;
  }

  /** True when the value is exactly an integer. */
  get isInteger(): boolean {
    const c = this.canonical();
    return c.exponent >= 0 || c.digits === '0';
  }

  /** The nearest JS number (may lose precision; use only where a double is enough). */
  toNumber(): number {
    return typeof this.repr === 'number' ? this.repr : Number(this.repr);
  }

  /** Exact integer value when the number is an integer, else undefined. */
  toBigInt(): bigint | undefined {
    if (!this.isInteger) return undefined;
    const c = this.canonical();
    if (c.digits === '0') return 0n;
    const magnitude = BigInt(c.digits + '0'.repeat(c.exponent));
    return c.negative ? -magnitude : magnitude;
  }

  /** Plain decimal text without exponent, e.g. "12345678901234567891" or "0.1". */
  toDecimalString(): string {
    if (typeof this.repr === 'number' && !Number.isFinite(this.repr)) return this.repr > 0 ? 'Infinity' : '-Infinity';
    const { negative, digits, exponent } = this.canonical();
    if (digits === '0') return '0';
    let text: string;
    if (exponent >= 0) text = digits + '0'.repeat(exponent);
    else {
      const point = digits.length + exponent;
      text = point > 0 ? `${digits.slice(0, point)}.${digits.slice(point)}` : `0.${'0'.repeat(-point)}${digits}`;
    }
    return negative ? `-${text}` : text;
  }

  equals(other: TfNumber): boolean {
    // Two doubles (the usual case): equal values have equal shortest decimal text and back.
    if (typeof this.repr === 'number' && typeof other.repr === 'number') return this.repr === other.repr;
    // Compared by sign, digits and exponent, never by expanded text: "1e400000000" would
    // expand to 400 million characters (core may send any decimal).
    const infinite = (n: TfNumber) => typeof n.repr === 'number' && !Number.isFinite(n.repr);
    if (infinite(this) || infinite(other)) return this.repr === other.repr;
    const a = this.canonical();
    const b = other.canonical();
    return a.negative === b.negative && a.digits === b.digits && a.exponent === b.exponent;
  }

  /** Text for messages: the plain decimal when short, else scientific notation (bounded length). */
  describe(): string {
    if (typeof this.repr === 'number' && !Number.isFinite(this.repr)) return this.toDecimalString();
    const { negative, digits, exponent } = this.canonical();
    if (digits === '0' || Math.abs(exponent) + digits.length <= 64) return this.toDecimalString();
    const shown = digits.length > 20 ? `${digits[0]}.${digits.slice(1, 20)}…` : digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${negative ? '-' : ''}${shown}e${exponent + digits.length - 1}`;
  }

  toString(): string {
    return this.toDecimalString();
  }

  /** sign, significant digits without leading/trailing zeros, and a power-of-ten exponent. */
  private canonical(): { negative: boolean; digits: string; exponent: number } {
    let text: string;
    if (typeof this.repr === 'number') {
      if (!Number.isFinite(this.repr)) return { negative: this.repr < 0, digits: '0', exponent: 0 };
      text = this.repr.toString();
    } else {
      text = this.repr.toString();
    }
    const m = DECIMAL.exec(text);
    if (!m) throw new RangeError(`unexpected number text ${text}`);
    const negative = m[1] === '-';
    const intPart = m[2]!;
    const fraction = m[3] ?? '';
    let exponent = (m[4] ? parseInt(m[4], 10) : 0) - fraction.length;
    let digits = (intPart + fraction).replace(/^0+/, '');
    if (digits === '') return { negative: false, digits: '0', exponent: 0 };
    const trailing = /0+$/.exec(digits);
    if (trailing) {
      digits = digits.slice(0, -trailing[0].length);
      exponent += trailing[0].length;
    }
    return { negative, digits, exponent };
  }
}
