// The provider's state for one process: the catalog-derived resource types, the settings
// from ConfigureProvider and the Host client built from them.
import { HostClient } from '../../host-client/index.js';
import type { LoadedCatalog } from '../catalog/catalog-file.js';
import { errorDiag, type Diagnostic } from '../diag/diagnostics.js';
import type { Logger } from '../logging.js';
import { FormResourceType } from '../resource/form-resource-type.js';
import type { HostAccess } from '../resource/lifecycle.js';
import type { TfObject } from '../values/tf-value.js';
import { readProviderSettings } from './provider-config.js';

export const PROVIDER_VERSION = '0.1.0';

export class TakoformProvider implements HostAccess {
  readonly resourceTypes = new Map<string, FormResourceType>();
  client: HostClient | undefined;
  defaultSpace: string | undefined;
  configUnknown = false;
  readonly loadDiagnostics: Diagnostic[] = [];

  constructor(
    readonly catalog: LoadedCatalog,
    readonly logger: Logger,
  ) {
    for (const form of catalog.catalog.forms) {
      try {
        this.resourceTypes.set(form.typeName, new FormResourceType(form));
      } catch (e) {
        this.loadDiagnostics.push(errorDiag('Invalid catalog entry', `${form.typeName} from ${catalog.source}: ${(e as Error).message}`));
      }
    }
    logger.info('catalog loaded', { source: catalog.source, resource_types: this.resourceTypes.size });
  }

  configure(config: TfObject | null, terraformVersion: string): Diagnostic[] {
    const settings = readProviderSettings(config);
    this.defaultSpace = settings.space;
    this.configUnknown = settings.unknown;
    if (settings.unknown) {
      this.logger.info('provider configuration not known yet; Host calls wait for apply', { terraform_version: terraformVersion });
      return [];
    }
    if (!settings.endpoint || !settings.token) {
      return [
        errorDiag(
          'Missing Host connection settings',
          `The takoform provider needs an endpoint and a token: set \`endpoint\` and \`token\` in the provider block, or TAKOFORM_ENDPOINT and TAKOFORM_TOKEN. Missing: ${[
            !settings.endpoint && 'endpoint',
            !settings.token && 'token',
          ]
            .filter(Boolean)
            .join(', ')}.`,
        ),
      ];
    }
    this.logger.addSecret(settings.token);
    try {
      this.client = new HostClient({
        endpoint: settings.endpoint,
        token: settings.token,
        userAgent: `terraform-provider-takoform/${PROVIDER_VERSION} (${terraformVersion || 'unknown core'})`,
        onExchange: (ev) => this.logger.debug('host request', { route: ev.route, method: ev.method, path: ev.path, status: ev.status, request_id: ev.requestId, duration_ms: ev.durationMs, attempt: ev.attempt }),
      });
    } catch (e) {
      return [errorDiag('Invalid provider configuration', `${(e as Error).message}`, ['endpoint'])];
    }
    this.logger.info('provider configured', { endpoint: settings.endpoint, space: settings.space, terraform_version: terraformVersion });
    return [];
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}
