// Request ids for error envelopes and logs: req_<process>_<counter>. The process part is the Host
// instance number the database handed out at start-up (server.ts), so ids stay unique across
// restarts and across several Host processes sharing one database; recorded error bodies keep
// the id they were made with. Ids of older Hosts (a random hex prefix) never start with "i".
export function createRequestIdSource(instance: number): () => string {
  const prefix = `i${instance.toString(36)}`;
  let counter = 0;
  return () => {
    counter += 1;
    return `req_${prefix}_${counter.toString(36)}`;
  };
}
