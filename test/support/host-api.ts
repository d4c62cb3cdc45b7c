// Out-of-band changes on the Host, made with plain fetch (not our client), the way another
// team or tool would: to create drift, delete things behind Terraform's back, and read what
// the Host really stores.
export interface FormRefLike {
  readonly apiVersion: string;
  readonly kind: string;
  readonly definitionVersion: string;
  readonly schemaDigest: string;
}

export class HostApi {
  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly space = 'demo',
  ) {}

  private path(ref: FormRefLike, name: string): string {
    return `${this.url}/apis/forms.takoform.com/v1/resources/${ref.apiVersion}/${ref.kind}/${name}`;
  }

  private query(ref: FormRefLike): string {
    return new URLSearchParams({ space: this.space, definitionVersion: ref.definitionVersion, schemaDigest: ref.schemaDigest }).toString();
  }

  async read(ref: FormRefLike, name: string): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.path(ref, name)}?${this.query(ref)}`, { headers: { authorization: `Bearer ${this.token}` } });
    return { status: res.status, body: await res.json() };
  }

  /** prepare + apply: a create when `generation` is undefined, else a fenced update. */
  async put(ref: FormRefLike, name: string, spec: Record<string, unknown>, generation?: string): Promise<any> {
    const doc = { apiVersion: ref.apiVersion, kind: ref.kind, form: { formRef: ref }, metadata: { name, space: this.space }, spec };
    const fence: Record<string, string> = generation ? { 'takoform-expected-generation': generation } : {};
    const headers = { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' };
    const prepared = await fetch(`${this.url}/apis/forms.takoform.com/v1/resources/prepare`, {
      method: 'POST',
      headers: { ...headers, ...fence },
      body: JSON.stringify(doc),
    });
    const review = ((await prepared.json()) as { review: { prepareDigest: string } }).review;
    const res = await fetch(this.path(ref, name), {
      method: 'PUT',
      headers: { ...headers, ...(generation ? fence : { 'if-none-match': '*' }), 'idempotency-key': `out-of-band-${Date.now()}-${Math.random()}` },
      body: JSON.stringify({ ...doc, review: { prepareDigest: review.prepareDigest } }),
    });
    if (res.status >= 300) throw new Error(`out-of-band apply failed: ${res.status} ${await res.text()}`);
    return res.json();
  }

  async delete(ref: FormRefLike, name: string, generation: string): Promise<number> {
    const res = await fetch(`${this.path(ref, name)}?${this.query(ref)}`, {
      method: 'DELETE',
      headers: {
        authorization: `Bearer ${this.token}`,
        'takoform-expected-generation': generation,
        'idempotency-key': `out-of-band-del-${Date.now()}-${Math.random()}`,
      },
    });
    return res.status;
  }
}

export const RANGE_SEQUENCE_REF: FormRefLike = {
  apiVersion: 'resources.publisher.example',
  kind: 'RangeSequence',
  definitionVersion: '0.1.0',
  schemaDigest: 'sha256:c23a0ad83fc1c32667ec9780bca3be4323990de9a2bb5bc00da9b61f1ec7e390',
};

export const RANGE_COUNTER_REF: FormRefLike = {
  apiVersion: 'resources.publisher.example',
  kind: 'RangeCounter',
  definitionVersion: '0.1.0',
  schemaDigest: 'sha256:0c1f2f3fc0bc03d5a528aa286e50df3fa1a2b735da9690e6fe20c999115c9c36',
};
