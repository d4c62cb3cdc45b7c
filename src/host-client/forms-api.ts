// Catalog routes: which exact Forms the Host has (`/forms`, with the exact availability
// probe) and their desired schemas (`/form-definitions`).
import { canonicalJson } from '../common/digest.js';
import { HostApiError, ProtocolViolationError } from './errors.js';
import { DIGEST_PATTERN, Reader } from './decode.js';
import { exactQuery, expectStatus, pickRef, seg, type HostConnection } from './connection.js';
import type { FormAvailability, FormDefinitionResponse, FormRef } from './wire-types.js';

export interface FormsFilter {
  readonly group?: string;
  readonly kind?: string;
  readonly definitionVersion?: string;
  readonly schemaDigest?: string;
  readonly space?: string;
}

export class FormsApi {
  constructor(private readonly conn: HostConnection) {}

  /** GET {api}/forms with optional filters; all five keys make it the exact probe. */
  async list(filter: FormsFilter = {}): Promise<FormAvailability[]> {
    const route = 'forms';
    const api = await this.conn.api();
    const query = new URLSearchParams();
    for (const key of ['definitionVersion', 'group', 'kind', 'schemaDigest', 'space'] as const) {
      const v = filter[key];
      if (v !== undefined) query.set(key, v);
    }
    const res = await this.conn.transport.send({ route, method: 'GET', path: `${api}/forms${query.size ? `?${query}` : ''}`, safeToRetry: true });
    expectStatus(route, res, [200]);
    const r = new Reader(route);
    const body = r.object(res.body, 'forms response', ['forms']);
    const forms = Array.isArray(body.forms) ? (body.forms as unknown[]) : r.fail('forms must be an array');
    return forms.map((entry, i) => {
      const w = `forms[${i}]`;
      const o = r.object(entry, w, ['identity', 'definitionKnown', 'installed', 'executable', 'activated', 'availableToPrincipal', 'operations']);
      const identity = r.object(o.identity, `${w}.identity`, ['formRef'], ['packageDigest']);
      const operations = Array.isArray(o.operations) ? (o.operations as unknown[]) : r.fail(`${w}.operations must be an array`);
      return {
        identity: {
          formRef: r.formRef(identity.formRef, `${w}.identity.formRef`),
          ...(identity.packageDigest !== undefined ? { packageDigest: r.string(identity.packageDigest, `${w}.identity.packageDigest`, DIGEST_PATTERN) } : {}),
        },
        definitionKnown: r.boolean(o.definitionKnown, `${w}.definitionKnown`),
        installed: r.boolean(o.installed, `${w}.installed`),
        executable: r.boolean(o.executable, `${w}.executable`),
        activated: r.boolean(o.activated, `${w}.activated`),
        availableToPrincipal: r.boolean(o.availableToPrincipal, `${w}.availableToPrincipal`),
        operations: operations.map((op, j) => r.string(op, `${w}.operations[${j}]`)),
      };
    });
  }

  /** The exact availability probe: the entry for this FormRef, or undefined when the Host lacks it. */
  async probe(formRef: FormRef, space: string): Promise<FormAvailability | undefined> {
    try {
      const forms = await this.list({
        group: formRef.apiVersion,
        kind: formRef.kind,
        definitionVersion: formRef.definitionVersion,
        schemaDigest: formRef.schemaDigest,
        space,
      });
      if (forms.length > 1) throw new ProtocolViolationError('forms', 'the exact probe answered more than one entry');
      const entry = forms[0];
      if (entry && canonicalJson(entry.identity.formRef) !== canonicalJson(pickRef(formRef)))
        throw new ProtocolViolationError('forms', 'the exact probe answered another FormRef');
      return entry;
    } catch (e) {
      if (e instanceof HostApiError && e.code === 'form_unknown') return undefined; // ambiguity A5
      throw e;
    }
  }

  async definition(formRef: FormRef, space: string): Promise<FormDefinitionResponse> {
    const route = 'form-definition';
    const api = await this.conn.api();
    const res = await this.conn.transport.send({
      route,
      method: 'GET',
      path: `${api}/form-definitions/${seg(formRef.apiVersion)}/${seg(formRef.kind)}?${exactQuery(formRef, space)}`,
      safeToRetry: true,
    });
    expectStatus(route, res, [200]);
    const r = new Reader(route);
    const o = r.object(res.body, 'form definition', ['identity', 'displayName', 'desiredSchema'], ['description']);
    const identity = r.object(o.identity, 'identity', ['formRef'], ['packageDigest']);
    const ref = r.formRef(identity.formRef, 'identity.formRef');
    if (canonicalJson(ref) !== canonicalJson(pickRef(formRef))) r.fail('identity.formRef differs from the requested exact FormRef');
    return {
      identity: {
        formRef: ref,
        ...(identity.packageDigest !== undefined ? { packageDigest: r.string(identity.packageDigest, 'identity.packageDigest', DIGEST_PATTERN) } : {}),
      },
      displayName: r.string(o.displayName, 'displayName'),
      ...(o.description !== undefined ? { description: r.string(o.description, 'description') } : {}),
      desiredSchema: r.jsonObject(o.desiredSchema, 'desiredSchema'),
    };
  }
}
