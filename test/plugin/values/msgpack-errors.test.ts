// Where a value that does not fit its type is: map elements are reached by key (core's
// element_key_string), never by an attribute name of the same spelling.
import { encode } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { decodeMsgpack, ValueCodecError } from '../../../src/plugin/values/msgpack.js';
import { T } from '../../../src/plugin/values/tf-type.js';

describe('msgpack decoding errors', () => {
  it('name the map key of a bad element as a key step', () => {
    const type = T.object({ tags: T.map(T.string) });
    let error: unknown;
    try {
      decodeMsgpack(encode({ tags: { ok: 'x', bad: 42 } }), type);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValueCodecError);
    expect((error as ValueCodecError).path).toEqual(['tags', { key: 'bad' }]);
    expect((error as Error).message).toBe('["tags"]["bad"]: string is required');
  });

  it('name attributes and list indices as before', () => {
    const type = T.object({ items: T.list(T.object({ n: T.number })) });
    expect(() => decodeMsgpack(encode({ items: [{ n: 1 }, { n: true }] }), type)).toThrow(expect.objectContaining({ path: ['items', 1, 'n'] }));
  });
});
