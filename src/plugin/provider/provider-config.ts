// The provider block: endpoint, token (sensitive), space, ca_file, each falling back to a
// TAKOFORM_* variable so CI can configure the provider without writing a secret into HCL.
import { T } from '../values/tf-type.js';
import { isUnknown, type TfObject } from '../values/tf-value.js';
import type { TfSchema } from '../schema/tf-schema.js';

export const PROVIDER_SCHEMA: TfSchema = {
  version: 0,
  block: {
    description: 'Manages resources on a Takoform Host (Host API `forms.takoform.com/v1`).',
    attributes: [
      {
        name: 'endpoint',
        type: T.string,
        optional: true,
        description: 'Host origin, e.g. `https://host.example` (plain `http` only for loopback). Falls back to `TAKOFORM_ENDPOINT`.',
      },
      { name: 'token', type: T.string, optional: true, sensitive: true, description: 'Bearer token for the Host. Falls back to `TAKOFORM_TOKEN`.' },
      { name: 'space', type: T.string, optional: true, description: 'Default space for resources that do not set `space`. Falls back to `TAKOFORM_SPACE`.' },
      {
        name: 'ca_file',
        type: T.string,
        optional: true,
        description:
          'PEM file of CA certificates to trust, besides the system ones, for an `https` Host with a private CA (verification is never turned off). Falls back to `TAKOFORM_CA_FILE`.',
      },
    ],
  },
};

export interface ProviderSettings {
  /** undefined when the value is unknown at this point of the run. */
  readonly endpoint: string | undefined;
  readonly token: string | undefined;
  readonly space: string | undefined;
  /** PEM file of extra CA certificates for an https Host with a private CA. */
  readonly caFile: string | undefined;
  readonly unknown: boolean;
}

export function readProviderSettings(config: TfObject | null, env: NodeJS.ProcessEnv = process.env): ProviderSettings {
  const pick = (attr: 'endpoint' | 'token' | 'space' | 'ca_file', envName: string): { value: string | undefined; unknown: boolean } => {
    const v = config?.[attr] ?? null;
    if (v !== null && isUnknown(v)) return { value: undefined, unknown: true };
    if (typeof v === 'string' && v !== '') return { value: v, unknown: false };
    const fromEnv = env[envName];
    return { value: fromEnv && fromEnv !== '' ? fromEnv : undefined, unknown: false };
  };
  const endpoint = pick('endpoint', 'TAKOFORM_ENDPOINT');
  const token = pick('token', 'TAKOFORM_TOKEN');
  const space = pick('space', 'TAKOFORM_SPACE');
  const caFile = pick('ca_file', 'TAKOFORM_CA_FILE');
  return {
    endpoint: endpoint.value,
    token: token.value,
    space: space.value,
    caFile: caFile.value,
    unknown: endpoint.unknown || token.unknown || space.unknown || caFile.unknown,
  };
}
