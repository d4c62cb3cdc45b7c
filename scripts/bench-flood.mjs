#!/usr/bin/env node
// The loud tenant of `npm run bench:host`, in a process of its own so that building and sending
// its bodies never delays the measuring client. Keeps STREAMS validate requests in flight, each
// a body of NUMBERS numbers, until SIGTERM; then prints the answers by status as one JSON line.
// Usage: node scripts/bench-flood.mjs URL TOKEN NUMBERS STREAMS FORMREF_JSON
const [url, token, numbers, streams, formRef] = process.argv.slice(2);
const ref = JSON.parse(formRef);
const body = JSON.stringify({
  apiVersion: ref.apiVersion,
  kind: ref.kind,
  form: { formRef: ref },
  metadata: { name: 'flood', space: 'bench' },
  spec: { lower: 1, upper: 2, extra: new Array(Number(numbers)).fill(0) },
});
const answers = {};
let running = true;
process.on('SIGTERM', () => {
  running = false;
});
const stream = async () => {
  while (running) {
    let status = 0;
    try {
      const response = await fetch(`${url}/apis/forms.takoform.com/v1/resources/validate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
      status = response.status;
    } catch {
      status = 0;
    }
    answers[status] = (answers[status] ?? 0) + 1;
  }
};
process.stdout.write('flooding\n');
await Promise.all(Array.from({ length: Number(streams) }, stream));
process.stdout.write(`${JSON.stringify(answers)}\n`);
