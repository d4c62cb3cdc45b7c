// The read-only check on its own (through the real CLIs: test/e2e/reserved-names.test.ts).
import { describe, expect, it } from 'vitest';
import { readOnlyDiagnostics } from '../../../src/plugin/schema/read-only.js';
import type { TfBlock } from '../../../src/plugin/schema/tf-schema.js';
import { T } from '../../../src/plugin/values/tf-type.js';
import { objectValue, UNKNOWN } from '../../../src/plugin/values/tf-value.js';

const BLOCK: TfBlock = {
  attributes: [
    { name: 'id', type: T.string, computed: true },
    { name: 'name', type: T.string, required: true },
    { name: 'mode', type: T.string, optional: true, computed: true },
    {
      name: 'rules',
      optional: true,
      nested: {
        nesting: 'LIST',
        attributes: [
          { name: 'match', type: T.string, required: true },
          { name: 'hits', type: T.string, computed: true },
        ],
      },
    },
    { name: 'outputs', computed: true, nested: { nesting: 'SINGLE', attributes: [{ name: 'endpoint', type: T.string, computed: true }] } },
  ],
  blocks: [
    {
      typeName: 'timeouts',
      nesting: 'SINGLE',
      block: {
        attributes: [
          { name: 'create', type: T.string, optional: true },
          { name: 'seen', type: T.string, computed: true },
        ],
      },
    },
  ],
};
const config = (entries: Record<string, unknown>) =>
  objectValue(Object.entries({ id: null, name: 'x', mode: null, rules: null, outputs: null, timeouts: null, ...entries }) as [string, never][]);

describe('configured read-only attributes', () => {
  it('are none where only required and optional ones are set, computed-optional included', () => {
    expect(
      readOnlyDiagnostics(
        'takoform_x',
        BLOCK,
        config({
          mode: 'a',
          rules: [
            objectValue([
              ['match', 'm'],
              ['hits', null],
            ]),
          ],
        }),
      ),
    ).toEqual([]);
  });
  it('are each refused with their path, at the top, inside nested lists and blocks, unknown values too', () => {
    const found = readOnlyDiagnostics(
      'takoform_x',
      BLOCK,
      config({
        id: UNKNOWN,
        outputs: objectValue([['endpoint', 'e']]),
        rules: [
          objectValue([
            ['match', 'm'],
            ['hits', null],
          ]),
          objectValue([
            ['match', 'n'],
            ['hits', '3'],
          ]),
        ],
        timeouts: objectValue([
          ['create', '1m'],
          ['seen', 'yes'],
        ]),
      }),
    );
    expect(found.map((d) => [d.severity, d.path])).toEqual([
      ['error', ['id']],
      ['error', ['rules', 1, 'hits']],
      ['error', ['outputs']],
      ['error', ['timeouts', 'seen']],
    ]);
    expect(found[1]!.detail).toBe(
      'takoform_x: `rules[1].hits` is set by the provider from the Host; a configured value would be ignored. Remove `rules[1].hits` from the configuration (read it as takoform_x.NAME.rules[1].hits).',
    );
  });
});
