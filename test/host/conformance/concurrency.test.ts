// Atomic check-and-write (§18): many parallel applies racing for one exclusive target, one claim
// value or one uniquePair; exactly one wins, every other is refused before mutation. And the
// idempotency in-flight window (§10.2): a duplicate of a request still executing is resource_busy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_FAMILY, errorCode, startTestHost, type TestHost } from '../support/host-harness.js';
import { FamilyClient, refOf, target } from './family-client.js';

const RACERS = 12;
let subject: TestHost;
let client: FamilyClient;

beforeAll(async () => {
  subject = await startTestHost({ packageDirs: [EXTERNAL_FAMILY], enableTestSwitches: true });
  client = new FamilyClient(subject);
});

afterAll(async () => {
  await subject.dispose();
});

async function race(run: (index: number) => Promise<{ status: number; json: unknown }>): Promise<{ winners: number; refusals: string[] }> {
  const answers = await Promise.all(Array.from({ length: RACERS }, (_, index) => run(index)));
  return {
    winners: answers.filter((answer) => answer.status === 201).length,
    refusals: answers
      .filter((answer) => answer.status !== 201)
      .map((answer) => errorCode({ ...answer, headers: new Headers(), text: '' }) ?? String(answer.status)),
  };
}

describe('concurrent applies', () => {
  it('exclusive: exactly one of many parallel leases on one counter wins', async () => {
    await client.apply(refOf('range-counter'), 'contested', { lower: 1, upper: 2 });
    const { winners, refusals } = await race((index) =>
      client.apply(refOf('counter-lease'), `racer-${index}`, { target: target('resources.publisher.example', 'RangeCounter', 'contested') }),
    );
    expect(winners).toBe(1);
    expect(new Set(refusals)).toEqual(new Set(['invalid_argument']));
  });

  it('claim: exactly one of many parallel tickets claiming one value wins, across spaces', async () => {
    const { winners, refusals } = await race((index) =>
      new FamilyClient(subject, undefined, `space-${index}`).apply(refOf('constraint-claim-primary'), 'ticket', { claim: 'contested' }),
    );
    expect(winners).toBe(1);
    expect(refusals).toHaveLength(RACERS - 1);
  });

  it('uniquePair: exactly one of many parallel holders of one ordered pair wins', async () => {
    const node = refOf('constraint-node');
    await client.apply(node, 'pair-left', {});
    await client.apply(node, 'pair-right', {});
    const spec = {
      left: target('constraints.publisher.example', 'ConstraintNode', 'pair-left'),
      right: target('constraints.publisher.example', 'ConstraintNode', 'pair-right'),
    };
    const { winners } = await race((index) => client.apply(refOf('constraint-unique-pair'), `pair-${index}`, spec));
    expect(winners).toBe(1);
  });

  it('create: exactly one of many parallel creates of one name wins; the rest see the name taken', async () => {
    const { winners, refusals } = await race(() => client.apply(refOf('range-sequence'), 'same-name', { lower: 1, upper: 2 }));
    expect(winners).toBe(1);
    expect(new Set(refusals)).toEqual(new Set(['generation_conflict']));
  });
});

describe('idempotency in flight (§10.2)', () => {
  it('answers resource_busy (retryable) to a duplicate while the first is executing, then replays it', async () => {
    const form = refOf('range-gauge');
    const prepared = (await client.prepare(form, 'busy', { lower: 1, upper: 2 })).json as { resource: { spec: unknown }; review: { prepareDigest: string } };
    const request = {
      body: { ...client.body(form, 'busy', prepared.resource.spec), review: { prepareDigest: prepared.review.prepareDigest } },
      headers: { 'if-none-match': '*', 'idempotency-key': 'busy-key', 'takoform-test-fault': 'delay=400' },
    };
    const first = subject.call('PUT', client.path(form, 'busy'), request);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const duplicate = await subject.call('PUT', client.path(form, 'busy'), request);
    expect(duplicate.status).toBe(409);
    expect(duplicate.json).toMatchObject({ error: { code: 'resource_busy', retryable: true } });
    const original = await first;
    expect(original.status).toBe(201);
    const replay = await subject.call('PUT', client.path(form, 'busy'), request);
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(original.text);
    expect(replay.headers.get('etag')).toBe('"1"');
  });
});
