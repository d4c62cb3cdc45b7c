// Support profiles (`support.takoform.com/v1`, wire reference §15): what this Host serves
// for a Form, Interface, Binding or standard-service protocol. A profile naming another
// contract or another exact digest is refused.
import { canonicalJson } from '../common/digest.js';
import { Reader } from './decode.js';
import { expectStatus, pickRef, seg, type HostConnection } from './connection.js';
import type { FormRef } from './wire-types.js';

export interface SupportProfile {
  readonly kind: 'FormSupport' | 'InterfaceSupport' | 'BindingSupport' | 'StandardServiceSupport';
  readonly formRef?: FormRef;
  readonly interfaceRef?: Record<string, unknown>;
  readonly bindingRef?: Record<string, unknown>;
  readonly operations?: readonly string[];
  readonly serviceRef?: { readonly apiVersion: string; readonly protocol: string };
  readonly satisfiable?: boolean;
  readonly supportedEnums?: Record<string, unknown>;
  readonly supportedRanges?: Record<string, unknown>;
  readonly supportedBindings?: readonly string[];
  readonly limits?: Record<string, number>;
}

const PROFILE_MEMBERS = [
  'apiVersion',
  'kind',
  'formRef',
  'interfaceRef',
  'bindingRef',
  'operations',
  'serviceRef',
  'satisfiable',
  'supportedEnums',
  'supportedRanges',
  'supportedBindings',
  'limits',
];
const OPERATIONS = ['create', 'read', 'update', 'delete', 'import', 'observe'];

export class SupportApi {
  constructor(private readonly conn: HostConnection) {}

  async forms(): Promise<SupportProfile[]> {
    const route = 'support-forms';
    const body = await this.get(route, '/support/forms');
    const r = new Reader(route);
    const o = r.object(body, 'support forms', ['profiles']);
    const profiles = Array.isArray(o.profiles) ? (o.profiles as unknown[]) : r.fail('profiles must be an array');
    return profiles.map((p, i) => readProfile(r, p, `profiles[${i}]`, 'FormSupport'));
  }

  async form(formRef: FormRef): Promise<SupportProfile> {
    const route = 'support-form';
    const body = await this.get(route, `/support/forms/${seg(formRef.apiVersion)}/${seg(formRef.kind)}/${seg(formRef.definitionVersion)}`);
    const profile = readProfile(new Reader(route), body, 'profile', 'FormSupport');
    if (!profile.formRef || canonicalJson(profile.formRef) !== canonicalJson(pickRef(formRef))) {
      new Reader(route).fail('the profile names another exact FormRef');
    }
    return profile;
  }

  async interface(name: string, version: string): Promise<SupportProfile> {
    const route = 'support-interface';
    return readProfile(new Reader(route), await this.get(route, `/support/interfaces/${seg(name)}/${seg(version)}`), 'profile', 'InterfaceSupport');
  }

  async binding(name: string, version: string): Promise<SupportProfile> {
    const route = 'support-binding';
    return readProfile(new Reader(route), await this.get(route, `/support/bindings/${seg(name)}/${seg(version)}`), 'profile', 'BindingSupport');
  }

  async standardService(protocol: string): Promise<SupportProfile> {
    const route = 'support-standard-service';
    const profile = readProfile(new Reader(route), await this.get(route, `/support/standard-services/${seg(protocol)}`), 'profile', 'StandardServiceSupport');
    if (profile.serviceRef?.protocol !== protocol) new Reader(route).fail('the profile names another protocol');
    return profile;
  }

  private async get(route: string, suffix: string): Promise<unknown> {
    const api = await this.conn.api();
    const res = await this.conn.transport.send({ route, method: 'GET', path: `${api}${suffix}`, safeToRetry: true });
    expectStatus(route, res, [200]);
    return res.body;
  }
}

function readProfile(r: Reader, value: unknown, where: string, kind: SupportProfile['kind']): SupportProfile {
  const o = r.object(value, where, ['apiVersion', 'kind'], PROFILE_MEMBERS);
  if (o.apiVersion !== 'support.takoform.com/v1') r.fail(`${where}.apiVersion must be support.takoform.com/v1`);
  if (o.kind !== kind) r.fail(`${where}.kind must be ${kind}`);
  const required: Record<SupportProfile['kind'], string[]> = {
    FormSupport: ['formRef', 'operations'],
    InterfaceSupport: ['interfaceRef'],
    BindingSupport: ['bindingRef'],
    StandardServiceSupport: ['serviceRef', 'satisfiable'],
  };
  const forbidden: Record<SupportProfile['kind'], string[]> = {
    FormSupport: ['interfaceRef', 'bindingRef', 'serviceRef', 'satisfiable'],
    InterfaceSupport: ['formRef', 'bindingRef', 'serviceRef', 'satisfiable'],
    BindingSupport: ['formRef', 'interfaceRef', 'serviceRef', 'satisfiable'],
    StandardServiceSupport: ['formRef', 'interfaceRef', 'bindingRef', 'operations'],
  };
  for (const m of required[kind]) if (!(m in o)) r.fail(`${where} lacks ${m}`);
  for (const m of forbidden[kind]) if (m in o) r.fail(`${where} must not carry ${m}`);
  let operations: string[] | undefined;
  if (o.operations !== undefined) {
    operations = (Array.isArray(o.operations) ? (o.operations as unknown[]) : r.fail(`${where}.operations must be an array`)).map((op, i) =>
      r.string(op, `${where}.operations[${i}]`),
    );
    for (const op of operations) if (!OPERATIONS.includes(op)) r.fail(`${where}.operations has unknown operation ${op}`);
  }
  let serviceRef: SupportProfile['serviceRef'];
  if (o.serviceRef !== undefined) {
    const s = r.object(o.serviceRef, `${where}.serviceRef`, ['apiVersion', 'protocol']);
    if (s.apiVersion !== 'standards.takoform.com/v1') r.fail(`${where}.serviceRef.apiVersion must be standards.takoform.com/v1`);
    serviceRef = { apiVersion: 'standards.takoform.com/v1', protocol: r.string(s.protocol, `${where}.serviceRef.protocol`) };
  }
  return {
    kind,
    ...(o.formRef !== undefined ? { formRef: r.formRef(o.formRef, `${where}.formRef`) } : {}),
    ...(o.interfaceRef !== undefined ? { interfaceRef: r.object(o.interfaceRef, `${where}.interfaceRef`, [], Object.keys(o.interfaceRef as object)) } : {}),
    ...(o.bindingRef !== undefined ? { bindingRef: r.object(o.bindingRef, `${where}.bindingRef`, [], Object.keys(o.bindingRef as object)) } : {}),
    ...(operations ? { operations } : {}),
    ...(serviceRef ? { serviceRef } : {}),
    ...(o.satisfiable !== undefined ? { satisfiable: r.boolean(o.satisfiable, `${where}.satisfiable`) } : {}),
    ...(o.supportedEnums !== undefined ? { supportedEnums: r.jsonObject(o.supportedEnums, `${where}.supportedEnums`) } : {}),
    ...(o.supportedRanges !== undefined ? { supportedRanges: r.jsonObject(o.supportedRanges, `${where}.supportedRanges`) } : {}),
    ...(o.supportedBindings !== undefined ? { supportedBindings: o.supportedBindings as string[] } : {}),
    ...(o.limits !== undefined ? { limits: r.jsonObject(o.limits, `${where}.limits`) as unknown as Record<string, number> } : {}),
  };
}
